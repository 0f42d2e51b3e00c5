"""Builds the module with the tree's own build (autoreconf, ./configure,
make: whichever of them the tree still needs) and puts libgpuagg.so in the
package. The wheel holds no Python extension, so it is tagged py3-none for
this platform alone. GPUAGG_MODULE=/path/to/libgpuagg.so takes a module
built already; GPUAGG_CONFIGURE_FLAGS is passed to ./configure (for
example --without-cuda)."""
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def version():
    """AC_INIT's version in configure.ac: the module's own."""
    with open(os.path.join(TOP, 'configure.ac')) as f:
        return re.search(r'AC_INIT\(\[gpuagg\], \[([^]]+)\]', f.read()).group(1)

def run(cmd):
    print('gpuagg:', ' '.join(cmd), file=sys.stderr)
    subprocess.check_call(cmd, cwd=TOP)

def module():
    """The module's path, built here if need be."""
    given = os.environ.get('GPUAGG_MODULE')
    if given:
        return given
    if not os.path.exists(os.path.join(TOP, 'Makefile')):
        if not os.path.exists(os.path.join(TOP, 'configure')):
            run(['autoreconf', '-fi'])
        run(['./configure', '--quiet'] + shlex.split(os.environ.get('GPUAGG_CONFIGURE_FLAGS', '')))
    run(['make', '-j%d' % (os.cpu_count() or 1), 'libgpuagg.la'])
    return os.path.join(TOP, '.libs', 'libgpuagg.so')

class BuildWithModule(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, 'gpuagg')
        os.makedirs(target, exist_ok=True)
        shutil.copyfile(module(), os.path.join(target, 'libgpuagg.so'))

class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True          # (a platform wheel: it carries a shared library)

cmdclass = {'build_py': BuildWithModule}
try:
    from wheel.bdist_wheel import bdist_wheel

    class Py3NoneWheel(bdist_wheel):
        def get_tag(self):
            return ('py3', 'none') + super().get_tag()[2:]
    cmdclass['bdist_wheel'] = Py3NoneWheel
except ImportError:
    pass

setup(version=version(), cmdclass=cmdclass, distclass=BinaryDistribution)
