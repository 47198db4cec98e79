#!/bin/sh
# tiletag-run as on a machine with a GPU, for tests on machines without one:
# a `--device=cuda` run prints what the real tool prints there, the time of
# a `--repeat` run made up from the kernel file's size (so candidates
# differ); GPU=none fails like a machine without a driver, GPU=faulty fails
# the timed runs like a kernel that faults. Anything else: the real tool.
real=$1
shift
# It must see every command line, so it does not serve them (--serve).
[ "$1" = --serve ] && exit 2
case " $* " in
*" --device=cuda "*)
  if [ "${GPU:-}" = none ]; then
    echo "tiletag-run: error: --device=cuda: no CUDA driver (libcuda.so.1 cannot be opened)" >&2
    exit 2
  fi
  case " $* " in
  *" --repeat "*)
    if [ "${GPU:-}" = faulty ]; then
      echo "tiletag-run: @gemm on the GPU: kernel execution: an illegal memory access was encountered" >&2
      exit 1
    fi
    bytes=$(wc -c < "$1")
    printf "run @gemm (M=8192, N=8192, K=8192): 2048 programs in %d.%03d ms on the GPU (median of 20 launches)\n" $((bytes / 1000)) $((bytes % 1000)) ;;
  *)
    echo "run @gemm (M=256, N=256, K=320): 4 programs in 0.1 ms on the GPU"
    echo "  compare with the CPU oracle: C matches" ;;
  esac
  exit 0 ;;
esac
exec "$real" "$@"
