# Sets up this checkout as a Poplar SDK, as the SDK's own enable.sh does:
#   . ./enable.sh
# builds what is missing (libpoplar and the tools, with cargo), then puts
# sdk/include on CPATH, sdk/lib on LIBRARY_PATH and LD_LIBRARY_PATH, and the
# tools (popc, poplar-compile, poplar-run, poplar-report) on PATH, so that
#   g++ -std=c++11 prog.cpp -lpoplar -lpopops -lpoplin -lpoputil -o prog
# builds a Poplar program with no -I or -L. Every -l name is the one
# library, libpoplar. POPLAR_RS_PROFILE=dev uses the debug build instead
# of the release one (faster to build, slower to run). POPLAR_RS_MPI=1
# builds libpoplar and poplar-run with MPI (Open MPI's headers and libclang
# needed), so that `poprun` can launch them as the instances of one job
# (docs/scale-out.md).
# shellcheck shell=bash
_poplar_rs_root=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
_poplar_rs_enable() {
  local root=$1 profile=${POPLAR_RS_PROFILE:-release} dir features=()
  case $profile in
    dev | debug) profile=dev dir=debug ;;
    *) dir=$profile ;;
  esac
  if [ "${POPLAR_RS_MPI:-0}" = 1 ]; then
    features=(--features capi/mpi,poplar-run/mpi)
  fi
  if ! (cd "$root" && cargo build --quiet --profile "$profile" -p capi -p popc -p compiler -p poplar-run -p report "${features[@]}"); then
    echo "enable.sh: the build failed; the SDK environment is not set" >&2
    return 1
  fi
  mkdir -p "$root/sdk/lib"
  ln -sf "../../target/$dir/libpoplar.so" "$root/sdk/lib/libpoplar.so"
  local name
  for name in popops poplin poputil popnn poprand pva; do
    ln -sf libpoplar.so "$root/sdk/lib/lib$name.so"
  done
  export POPLAR_SDK_ENABLED="$root/sdk"
  export CPATH="$root/sdk/include${CPATH:+:$CPATH}"
  export LIBRARY_PATH="$root/sdk/lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export LD_LIBRARY_PATH="$root/sdk/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PATH="$root/target/$dir:$PATH"
}
_poplar_rs_enable "$_poplar_rs_root"
unset -f _poplar_rs_enable
unset _poplar_rs_root
