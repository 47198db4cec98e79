// The structure of the lowered GEMM: warp roles as branches on the
// warpgroup index with register reallocation, mbarriers created and
// initialized once, TMA loads issued by one thread into 1024-byte aligned
// swizzled slots (B in two 64-column panels), the accumulator carried in
// wgmma registers, and the interface a runner needs.
// REQUIRES: z3
// RUN: tiletag-opt %examples/gemm.mlir --tiletag-verify --tiletag-convert-to-nvgpu | FileCheck %s

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @tiletag_kernels
// CHECK: gpu.func @gemm(%{{.*}}: memref<?x?xbf16>, %{{.*}}: memref<?x?xbf16>, %{{.*}}: memref<?x?xf32>, %[[MAPA:.*]]: !llvm.ptr, %[[MAPB:.*]]: !llvm.ptr, %[[WS:.*]]: memref<?xi8>) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: tiletag.abi = {block = array<i64: 256, 1, 1>, grid_rank = 2 : i64, shared_bytes = 132096 : i64,
// CHECK-SAME: tensor_maps = [{box = array<i64: 128, 64>, operand = 0 : i64, swizzle = 128 : i64}, {box = array<i64: 64, 64>, operand = 1 : i64, swizzle = 128 : i64}]
// CHECK-SAME: wgmma = true, workspace_bytes = 0 : i64}
// CHECK: builtin.unrealized_conversion_cast %[[MAPA]] : !llvm.ptr to !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b
// CHECK: nvgpu.mbarrier.create
// CHECK: nvgpu.mbarrier.init
// CHECK: gpu.barrier
// Producer: warpgroup 0.
// CHECK: scf.if
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}}32768
// CHECK: nvgpu.tma.async.load
// CHECK: nvgpu.tma.async.load
// CHECK: nvgpu.tma.async.load
// Consumer: warpgroup 1.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<128x128xf32>>
// CHECK: scf.for {{.*}} -> (!nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>)
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.warpgroup.generate.descriptor {{.*}} -> <tensor = memref<128x64xbf16, 3>>
// CHECK: nvgpu.warpgroup.generate.descriptor {{.*}} -> <tensor = memref<64x128xbf16, 3>>
// CHECK: nvgpu.warpgroup.mma {{.*}} {transposeB}
// CHECK: nvgpu.mbarrier.arrive
// CHECK: scf.yield
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The accumulator goes from registers straight to C by the wgmma fragment
// layout, rows counted from the consumer warpgroup's first thread (128):
// each column pair as one 8-byte vector store where C keeps it aligned and
// inside, element by element (each clipped at C's edges) otherwise.
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>> to !llvm.struct<(struct<(f32,
// CHECK: arith.subi %thread_id_x, %c128
// CHECK: llvm.extractvalue
// CHECK: memref.extract_strided_metadata %arg2
// CHECK: memref.extract_aligned_pointer_as_index %arg2
// CHECK: scf.if
// CHECK-NEXT: vector.from_elements {{.*}} : vector<2xf32>
// CHECK-NEXT: vector.store {{.*}}, %arg2[{{.*}}] {alignment = 8 : i64} : memref<?x?xf32>, vector<2xf32>
// CHECK-NEXT: } else {
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %arg2
// CHECK-NOT: nvvm.barrier
// CHECK: gpu.return
// CHECK-NOT: tile.kernel
