"""What a candidate's script may change (kernel.scope, out_of_scope), on
the module as tiletag-opt prints it (argv[2]): each way of stepping out of
the targeted kernel is named; rewriting the kernel or adding one is not."""
import sys

sys.path.insert(0, sys.argv[1])
from tiletag_agent import kernel  # noqa: E402

printed = open(sys.argv[2]).read()
expected = kernel.scope(printed, "gemm")
assert kernel.out_of_scope(printed, expected) is None
kernels = kernel.kernels_in(printed)
gemm = kernels["gemm"][2]
reference = kernels["gemm_reference"][2]


def swap(old, new, text=printed):
    assert old in text, old
    return text.replace(old, new, 1)


cases = {
    "kernel rewritten": swap("%c64 = arith.constant 64", "%c64 = arith.constant 32"),
    "kernel added": printed + "\n" + reference.replace("@gemm_reference", "@gemm_reduce"),
    "reference rewritten": printed.replace(
        reference, reference.replace("arith.constant 64", "arith.constant 32")),
    "reference removed": printed.replace(reference, ""),
    "kernel removed": printed.replace(gemm, ""),
    "contract dropped": swap("tag.contract = @gemm_reference, ", ""),
    "contract renamed": printed.replace(
        gemm, gemm.replace("@gemm_reference", "@gemm_reduce")),
    "workload changed": printed.replace(gemm, gemm.replace('check = "gemm"', 'check = "none"')),
}
for name, text in cases.items():
    print("%s: %s" % (name, kernel.out_of_scope(text, expected)))
