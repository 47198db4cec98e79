// The accumulator's epilogue stores on Hopper: each thread holds columns in
// adjacent pairs (wgmma registers 2i and 2i + 1), and stores a pair with one
// vector instruction where C's base address, offset and row stride and the
// tile's first column keep the pair aligned (checked once per store) and
// both elements lie inside C, element by element (each clipped) otherwise.
// A bf16 pair is one 32-bit store (st.global.v2.b16). A combining store
// stays one atomic add per element.
// REQUIRES: ptxas
// RUN: tiletag-opt --tiletag-verify %s -o %t.mlir
// RUN: tiletag-opt %t.mlir --tiletag-convert-to-nvgpu | FileCheck %s --check-prefix=IR
// RUN: tiletag-opt %t.mlir --tiletag-compile-cuda="chip=sm_90a format=isa output=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL
// NOSPILL-NOT: {{[1-9][0-9]* bytes spill}}
// NOSPILL-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
// NOSPILL-NOT: {{[1-9][0-9]* bytes spill}}

// IR-LABEL: gpu.func @store_bf16(
// IR: memref.extract_strided_metadata %arg2
// IR: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %arg2
// IR: arith.remui %[[BASE]], %{{.*}} : index
// IR: scf.if
// IR-NEXT: vector.from_elements {{.*}} : vector<2xbf16>
// IR-NEXT: vector.store {{.*}}, %arg2[{{.*}}] {alignment = 4 : i64} : memref<?x?xbf16>, vector<2xbf16>
// IR-NEXT: } else {
// IR: scf.if
// IR-NEXT: memref.store %{{.*}}, %arg2
// IR: scf.if
// IR-NEXT: memref.store %{{.*}}, %arg2
// PTX-LABEL: .entry store_bf16(
// PTX: st.global.v2.b16
// PTX: st.global.b16
// PTX-LABEL: .entry add_f32(
// PTX-NOT: st.global.v2
// PTX: atom.global.add.f32
// PTX-NOT: st.global.v2
// PTX: ret;
tile.kernel @store_bf16(%A: memref<?x64xbf16> {tile.name = "A"}, %B: memref<64x?xbf16> {tile.name = "B"},
                        %C: memref<?x?xbf16> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 300, N = 200], grid = [M ceildiv 128, N ceildiv 128],
                                   shapes = [A = [M, 64], B = [64, N], C = [M, N]]>,
        schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %a = tile.load %A[%pm, %c0] padding(0.0 : bf16) : memref<?x64xbf16> -> tensor<128x64xbf16>
  %b = tile.load %B[%c0, %pn] padding(0.0 : bf16) : memref<64x?xbf16> -> tensor<64x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %a, %b, %zero : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  %h = arith.truncf %d : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %h, %C[%pm, %pn] : tensor<128x128xbf16> -> memref<?x?xbf16>
  tile.return
}

// IR-LABEL: gpu.func @add_f32(
// IR-NOT: vector.store
// IR: memref.atomic_rmw addf
// IR-NOT: vector.store
// IR: gpu.return
tile.kernel @add_f32(%A: memref<?x64xbf16> {tile.name = "A"}, %B: memref<64x?xbf16> {tile.name = "B"},
                     %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 300, N = 200], grid = [M ceildiv 128, N ceildiv 128],
                                   shapes = [A = [M, 64], B = [64, N], C = [M, N]]>,
        schedule.launch = #schedule.launch<warpgroups = 1>} {
  %c0 = arith.constant 0 : index
  %pm = tile.program_id 0
  %pn = tile.program_id 1
  %a = tile.load %A[%pm, %c0] padding(0.0 : bf16) : memref<?x64xbf16> -> tensor<128x64xbf16>
  %b = tile.load %B[%c0, %pn] padding(0.0 : bf16) : memref<64x?xbf16> -> tensor<64x128xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %a, %b, %zero : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
  tile.store %d, %C[%pm, %pn] combine add : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
