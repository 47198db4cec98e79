#!/bin/sh
# A tiletag-opt that dies (SIGKILL) while applying any script with
# `factor(3)`, as a worker killed mid-evaluation would; otherwise the real one.
real=$1
shift
# It must see every command line, so it does not serve them (--serve).
[ "$1" = --serve ] && exit 2
for arg in "$@"; do
  case "$arg" in
    --transform-preload-library=transform-library-paths=*)
      if grep -q "factor(3)" "${arg#--transform-preload-library=transform-library-paths=}"; then
        kill -9 $$
      fi ;;
  esac
done
exec "$real" "$@"
