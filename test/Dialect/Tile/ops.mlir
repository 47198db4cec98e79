// RUN: tiletag-opt %s | tiletag-opt | FileCheck %s
// RUN: tiletag-opt %s --mlir-print-op-generic | tiletag-opt | FileCheck %s

// CHECK-LABEL: tile.kernel @structure(
// CHECK-SAME: %X: memref<?x?xf32> {tile.name = "X"}
// CHECK-SAME: %arg0: index
// CHECK-SAME: grid(3)
tile.kernel @structure(%X: memref<?x?xf32> {tile.name = "X"}, %n: index, %s: f32) grid(3) {
  // CHECK: tile.program_id 0
  // CHECK: tile.program_id 2
  // CHECK: tile.num_programs 1
  %p0 = tile.program_id 0
  %p2 = tile.program_id 2
  %n1 = tile.num_programs 1
  // CHECK: tile.return
  tile.return
}

// CHECK-LABEL: tile.kernel @global_access
tile.kernel @global_access(%A: memref<?x?xbf16>, %B: memref<?x?x?xf32>, %v: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] padding(0.000000e+00 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
  %a = tile.load %A[%c0, %c1] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x?xbf16> -> tensor<128x64xbf16>
  %u = tile.load %A[%c0, %c1] : memref<?x?xbf16> -> tensor<128x64xbf16>
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] offset [%{{.*}}, %{{.*}}] bounds [%{{.*}}, %{{.*}}] padding(1.000000e+00 : bf16)
  %o = tile.load %A[%c0, %c1] offset [%c9, %c0] bounds [%c9, %c9] padding(1.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] padding({{.*}} : f32) : memref<?x?x?xf32> -> tensor<16x16xf32>
  %r = tile.load %B[%c1, %c0, %c0] padding(0.0 : f32) : memref<?x?x?xf32> -> tensor<16x16xf32>
  // CHECK: tile.load %{{.*}}[%{{.*}}] bounds [%{{.*}}] padding({{.*}}) : memref<?xf32> -> tensor<32xf32>
  %w = tile.load %v[%c0] bounds [%c9] padding(0.0 : f32) : memref<?xf32> -> tensor<32xf32>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<16x16xf32> -> memref<?x?x?xf32>
  tile.store %r, %B[%c0, %c0, %c1] : tensor<16x16xf32> -> memref<?x?x?xf32>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] offset [%{{.*}}, %{{.*}}, %{{.*}}] bounds [%{{.*}}, %{{.*}}, %{{.*}}] combine add
  tile.store %r, %B[%c0, %c0, %c1] offset [%c0, %c9, %c0] bounds [%c9, %c9, %c9] combine add : tensor<16x16xf32> -> memref<?x?x?xf32>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}] combine overwrite : tensor<32xf32> -> memref<?xf32>
  tile.store %w, %v[%c1] combine overwrite : tensor<32xf32> -> memref<?xf32>
  tile.return
}

// CHECK-LABEL: tile.kernel @shared_access
tile.kernel @shared_access(%A: memref<?x?xbf16>, %C: memref<?x?xf32>) grid(2) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  // CHECK: tile.alloc_shared : memref<4x128x64xbf16, #gpu.address_space<workgroup>>
  %ring = tile.alloc_shared : memref<4x128x64xbf16, #gpu.address_space<workgroup>>
  // CHECK: tile.alloc_shared : memref<2x2x64x64xf32, 3>
  %grid = tile.alloc_shared : memref<2x2x64x64xf32, 3>
  // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}] padding(0.000000e+00 : bf16) : memref<?x?xbf16> -> memref<4x128x64xbf16, #gpu.address_space<workgroup>>
  tile.copy %A[%c0, %c3] -> %ring[%c3] padding(0.0 : bf16) : memref<?x?xbf16> -> memref<4x128x64xbf16, #gpu.address_space<workgroup>>
  // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}] offset [%{{.*}}, %{{.*}}] bounds [%{{.*}}, %{{.*}}] :
  tile.copy %A[%c0, %c3] -> %ring[%c0] offset [%c3, %c0] bounds [%c3, %c3] : memref<?x?xbf16> -> memref<4x128x64xbf16, #gpu.address_space<workgroup>>
  // CHECK: tile.read %{{.*}}[%{{.*}}] : memref<4x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
  %t = tile.read %ring[%c3] : memref<4x128x64xbf16, #gpu.address_space<workgroup>> -> tensor<128x64xbf16>
  // CHECK: tile.read %{{.*}}[%{{.*}}, %{{.*}}] : memref<2x2x64x64xf32, 3> -> tensor<64x64xf32>
  %g = tile.read %grid[%c0, %c0] : memref<2x2x64x64xf32, 3> -> tensor<64x64xf32>
  // CHECK: tile.write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<64x64xf32> -> memref<2x2x64x64xf32, 3>
  tile.write %g, %grid[%c0, %c0] : tensor<64x64xf32> -> memref<2x2x64x64xf32, 3>
  // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}, %{{.*}}] : memref<2x2x64x64xf32, 3> -> memref<?x?xf32>
  tile.copy %grid[%c0, %c3] -> %C[%c0, %c0] : memref<2x2x64x64xf32, 3> -> memref<?x?xf32>
  tile.return
}

// CHECK-LABEL: tile.kernel @compute
tile.kernel @compute() grid(1) {
  %a = arith.constant dense<1.0> : tensor<128x64xbf16>
  %b = arith.constant dense<1.0> : tensor<64x32xbf16>
  %h = arith.constant dense<1.0> : tensor<16x16xf16>
  %f = arith.constant dense<1.0> : tensor<16x16xf32>
  %acc = arith.constant dense<0.0> : tensor<128x32xf32>
  %acc16 = arith.constant dense<0.0> : tensor<16x16xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xbf16>, tensor<64x32xbf16> -> tensor<128x32xf32>
  %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x32xbf16> -> tensor<128x32xf32>
  // CHECK: tile.dot {{.*}} : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  %d16 = tile.dot %h, %h, %acc16 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  // CHECK: tile.dot {{.*}} : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %d32 = tile.dot %f, %f, %acc16 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %e4 = arith.constant dense<1.0> : tensor<16x16xf8E4M3FN>
  %e5 = arith.constant dense<1.0> : tensor<16x16xf8E5M2>
  %e4z = arith.constant dense<1.0> : tensor<16x16xf8E4M3FNUZ>
  %e5z = arith.constant dense<1.0> : tensor<16x16xf8E5M2FNUZ>
  // CHECK: tile.dot {{.*}} : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN> -> tensor<16x16xf32>
  %p0 = tile.dot %e4, %e4, %acc16 : tensor<16x16xf8E4M3FN>, tensor<16x16xf8E4M3FN> -> tensor<16x16xf32>
  // CHECK: tile.dot {{.*}} : tensor<16x16xf8E5M2>, tensor<16x16xf8E5M2> -> tensor<16x16xf32>
  %p1 = tile.dot %e5, %e5, %acc16 : tensor<16x16xf8E5M2>, tensor<16x16xf8E5M2> -> tensor<16x16xf32>
  // CHECK: tile.dot {{.*}} : tensor<16x16xf8E4M3FNUZ>, tensor<16x16xf8E4M3FNUZ> -> tensor<16x16xf32>
  %p2 = tile.dot %e4z, %e4z, %acc16 : tensor<16x16xf8E4M3FNUZ>, tensor<16x16xf8E4M3FNUZ> -> tensor<16x16xf32>
  // CHECK: tile.dot {{.*}} : tensor<16x16xf8E5M2FNUZ>, tensor<16x16xf8E5M2FNUZ> -> tensor<16x16xf32>
  %p3 = tile.dot %e5z, %e5z, %acc16 : tensor<16x16xf8E5M2FNUZ>, tensor<16x16xf8E5M2FNUZ> -> tensor<16x16xf32>
  // CHECK: tile.reduce sum %{{.*}} axis 1 : tensor<128x32xf32> -> tensor<128xf32>
  %s = tile.reduce sum %d axis 1 : tensor<128x32xf32> -> tensor<128xf32>
  // CHECK: tile.reduce max %{{.*}} axis 0 : tensor<128x32xf32> -> tensor<32xf32>
  %m = tile.reduce max %d axis 0 : tensor<128x32xf32> -> tensor<32xf32>
  // CHECK: tile.reduce min %{{.*}} axis 0 : tensor<128xf32> -> tensor<f32>
  %n = tile.reduce min %s axis 0 : tensor<128xf32> -> tensor<f32>
  // CHECK: tile.broadcast %{{.*}} dims [1] : tensor<128xf32> -> tensor<128x32xf32>
  %sb = tile.broadcast %s dims [1] : tensor<128xf32> -> tensor<128x32xf32>
  // CHECK: tile.broadcast %{{.*}} dims [0, 2] : tensor<32xf32> -> tensor<4x32x8xf32>
  %mb = tile.broadcast %m dims [0, 2] : tensor<32xf32> -> tensor<4x32x8xf32>
  // CHECK: tile.iota dim 1 : tensor<128x32xi32>
  %i = tile.iota dim 1 : tensor<128x32xi32>
  // CHECK: tile.iota dim 0 : tensor<64xindex>
  %j = tile.iota dim 0 : tensor<64xindex>
  // CHECK: tile.transpose %{{.*}} perm [1, 0] : tensor<128x32xf32> -> tensor<32x128xf32>
  %t = tile.transpose %d perm [1, 0] : tensor<128x32xf32> -> tensor<32x128xf32>
  // CHECK: tile.transpose %{{.*}} perm [2, 0, 1] : tensor<4x32x8xf32> -> tensor<8x4x32xf32>
  %t3 = tile.transpose %mb perm [2, 0, 1] : tensor<4x32x8xf32> -> tensor<8x4x32xf32>
  // Tiles are builtin tensors: arith and math apply elementwise.
  // CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<128x32xf32>
  %e = arith.addf %d, %sb : tensor<128x32xf32>
  // CHECK: math.exp %{{.*}} : tensor<128x32xf32>
  %x = math.exp %e : tensor<128x32xf32>
  tile.return
}
