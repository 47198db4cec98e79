// The AMDGPU lowering emits wave64 MFMA code for CDNA2 and CDNA3 only.
// RUN: not tiletag-opt %s --tiletag-convert-to-amdgpu="allow-unverified chip=gfx1100" 2>&1 | FileCheck %s
// RUN: not tiletag-opt %s --tiletag-compile-rocm="chip=gfx908 verify=0 allow-unverified format=isa" 2>&1 | FileCheck %s --check-prefix=PIPE
// CHECK: error: the AMDGPU lowering targets CDNA2 and CDNA3 (gfx90a, gfx940, gfx941, gfx942: wave64 and bf16 MFMA), not 'gfx1100'
// PIPE: error: the AMDGPU lowering targets CDNA2 and CDNA3 {{.*}} not 'gfx908'
tile.kernel @k(%X: memref<?x?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 64], grid = [1], shapes = [X = [N, N]]>} {
  tile.return
}
