# Shared by scripts/demo.sh and scripts/test.sh: install what the build needs
# (Debian packages) and build the module in the top of the tree.

packages="autoconf automake libtool pkg-config make gcc check libsqlite3-dev sqlite3"

need_packages() {
  missing=
  for p in $packages; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  echo "installing:$missing"
  if [ "$(id -u)" = 0 ]; then sudo=; elif command -v sudo >/dev/null; then sudo=sudo; else
    echo "please install:$missing" >&2; exit 1
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
}

build() {
  [ -x configure ] || autoreconf -fi
  [ -f Makefile ] || ./configure --quiet
  make -j"$(nproc)" >/dev/null
}
