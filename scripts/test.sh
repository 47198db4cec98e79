#!/usr/bin/env bash
# Sets up and builds everything, then runs every test: the lit suite (IR,
# passes, examples, malformed-input sweep, the C API's test), the GoogleTest
# unit tests and the Python package's pytest suite.
# Ends with one summary line "tests: N passed, N failed, N skipped" and exits
# non-zero if anything failed. `scripts/test.sh --sanitize` runs them on an
# AddressSanitizer + UndefinedBehaviorSanitizer build (build-sanitize/).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build"
setup_flags=()
# --sanitize: build with ASan + UBSan into build-sanitize/ and run the same
# tests there; any sanitizer report fails the test that triggered it.
if [[ ${1:-} == --sanitize ]]; then
  build="$root/build-sanitize"
  setup_flags+=(--sanitize)
  # libMLIR.so is not instrumented: with user poisoning, ASan misreads the
  # memory LLVM's allocators hand out. Leaks at exit are not failures here.
  export ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
"$root/scripts/setup.sh" "${setup_flags[@]}" || { echo "tests: 0 passed, 1 failed (the build failed)"; exit 1; }

results="$build/test-results"
rm -rf "$results" && mkdir -p "$results"
status=0
/usr/lib/llvm-22/bin/lit -sv "$build/test" --xunit-xml-output "$results/lit.xml" || status=1
"$build/bin/TileTagUnitTests" --gtest_output="xml:$results/unit.xml" || status=1
# The Python package's tests and the documentation's code (not in the
# sanitizer build: an instrumented extension would need the sanitizer
# runtime preloaded into python3).
if [[ -d "$build/python/tiletag" ]]; then
  PYTHONPATH="$build/python" TILETAG_BUILD="$build" /usr/bin/python3 -m pytest -q \
    -p no:cacheprovider "$root/python-bindings/tests" "$root/test/Docs" \
    --junitxml="$results/pytest.xml" || status=1
fi

python3 - "$results" <<'PY' || status=1
import glob, sys, xml.etree.ElementTree as ET
passed = failed = skipped = 0
for path in glob.glob(sys.argv[1] + "/*.xml"):
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None or case.get("result") == "skipped":
            skipped += 1
        else:
            passed += 1
print("tests: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
sys.exit(1 if failed or passed == 0 else 0)
PY
exit $status
