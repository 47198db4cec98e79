// Loops mapped to threads and warps run their iterations in parallel, not
// one after another in every thread: iteration i on thread (warp) i mod U of
// the U the group has, each unit looping over its iterations U apart. A
// unit's tiles run on its threads alone: a warp synchronizes with
// bar.warp.sync, one thread needs no barrier, and each unit has its own
// slice of every workspace buffer. A warp reduces along the last axis
// across its lanes, with shuffles.
// REQUIRES: ptxas
// RUN: tiletag-opt %s -verify-diagnostics "--tiletag-convert-to-nvgpu=allow-unverified" -o /dev/null
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt --tiletag-convert-to-nvgpu=allow-unverified 2>/dev/null | FileCheck %s
// RUN: sed 's/expected-/seen-/' %s | tiletag-opt --tiletag-compile-cuda="verify=0 allow-unverified=1 format=isa output=%t.ptx" -o /dev/null 2>/dev/null
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// The test's kernels, as proved kernels, verify and compile (examples of
// what the schedule checker proves about mapped loops):
// RUN: tiletag-opt %S/../../Verification/schedule/softmax-thread-trees.mlir --tiletag-compile-cuda="format=isa output=%t.trees.ptx" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t.trees.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: tiletag-opt %S/../../Verification/schedule/thread-reduction.mlir --tiletag-compile-cuda="format=isa output=%t.warps.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=WARPS < %t.warps.ptx
// WARPS: bar.warp.sync
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX-LABEL: .entry by_warp(
// PTX-COUNT-5: shfl.sync.bfly.b32
// PTX: bar.warp.sync

// Eight iterations over the 128 threads of the program: thread t runs
// iteration t (none where t >= 8); the tile of 64 elements it loads and
// stores is the thread's alone, element by element.
// CHECK-LABEL: gpu.func @by_thread
// CHECK: %[[T:.*]] = arith.subi %thread_id_x, %c0
// CHECK: %[[FIRST:.*]] = arith.addi %c0{{.*}}, %{{.*}} : index
// CHECK: %[[STEP:.*]] = arith.muli %c1{{.*}}, %c128{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[FIRST]] to %c8{{.*}} step %[[STEP]]
// CHECK-NOT: gpu.barrier
// CHECK-NOT: nvvm.barrier
// CHECK: math.exp
// CHECK: gpu.return
// expected-warning @+1 {{allow-unverified}}
tile.kernel @by_thread(%X: memref<?xf32>, %Y: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %t = %c0 to %c8 step %c1 {
    %x = tile.load %X[%t] padding(0.0 : f32) : memref<?xf32> -> tensor<64xf32>
    %e = math.exp %x : tensor<64xf32>
    tile.store %e, %Y[%t] : tensor<64xf32> -> memref<?xf32>
  } {schedule.map = #schedule.map<thread>}
  tile.return
}

// Eight row blocks over the 4 warps of the program: each warp subtracts the
// row maxima of its blocks. The loaded tile (read twice) is held in the
// warp's slice of the workspace (1024 bytes + 16 for the maxima, times 4);
// the maxima are folded by each lane over columns lane, lane + 32, then
// combined by shuffles, and lane 0 writes them.
// CHECK-LABEL: gpu.func @by_warp
// CHECK-SAME: workspace_bytes = 4160
// CHECK: %[[W:.*]] = arith.divui %{{.*}}, %c32 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8{{.*}} step
// CHECK: arith.muli %[[W]], %c1024 : index
// CHECK: memref.view {{.*}} to memref<4x64xf32>
// CHECK: nvvm.bar.warp.sync %c-1_i32 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: scf.if
// CHECK: memref.store
// CHECK: nvvm.bar.warp.sync
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
// expected-warning @+1 {{allow-unverified}}
tile.kernel @by_warp(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %p = tile.program_id 0
  scf.for %w = %c0 to %c8 step %c1 {
    %x = tile.load %X[%p, %w] padding(0xFF800000 : f32) : memref<?x?xf32> -> tensor<4x64xf32>
    %m = tile.reduce max %x axis 1 : tensor<4x64xf32> -> tensor<4xf32>
    %mb = tile.broadcast %m dims [1] : tensor<4xf32> -> tensor<4x64xf32>
    %d = arith.subf %x, %mb : tensor<4x64xf32>
    tile.store %d, %Y[%p, %w] : tensor<4x64xf32> -> memref<?x?xf32>
  } {schedule.map = #schedule.map<warp>}
  tile.return
}
