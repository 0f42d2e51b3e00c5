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

# autoreconf's report of the files it copied in (libtoolize's, automake's
# "installing") is left out; anything else it says is shown, all of it if
# it fails. configure --quiet still prints its summary of what is built.
build() {
  if [ ! -x configure ]; then
    log=$(autoreconf -fi 2>&1) || { printf '%s\n' "$log" >&2; exit 1; }
    printf '%s\n' "$log" | grep -v -e '^libtoolize: ' -e ": installing '" >&2 || true
  fi
  [ -f Makefile ] || ./configure --quiet
  make -j"$(nproc)" >/dev/null
}

# Seconds since the epoch, to the millisecond; elapsed T0: "12.3 s" since T0.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }
