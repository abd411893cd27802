# Sourced by the build scripts: lets ccache share its cache between clones
# of the repository at different paths (CI builds in a fresh clone), by
# hashing paths relative to the source root and ignoring the build folder.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
export CCACHE_NOHASHDIR=true
