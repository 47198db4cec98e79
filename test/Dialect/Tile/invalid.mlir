// RUN: tiletag-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{a tile.kernel returns no values}}
tile.kernel @results(%A: memref<?xf32>) -> f32 grid(1) {
  tile.return
}

// -----

// expected-error @+1 {{grid rank must be 1, 2 or 3, got 4}}
tile.kernel @grid4() grid(4) {
  tile.return
}

// -----

// expected-error @+1 {{returns no values; write results to a memref operand}}
"tile.kernel"() <{sym_name = "generic_results", function_type = () -> f32, grid = 1 : i64}> ({
  "tile.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{operand #0 must be a memref in global memory}}
tile.kernel @shared_operand(%A: memref<4xf32, #gpu.address_space<workgroup>>) grid(1) {
  tile.return
}

// -----

// expected-error @+1 {{operand #1 has type 'tensor<4xf32>'; kernel operands are global memrefs or scalars}}
tile.kernel @tensor_operand(%A: memref<?xf32>, %t: tensor<4xf32>) grid(1) {
  tile.return
}

// -----

// FunctionOpInterface checks the entry block against the signature.
// expected-error @+1 {{entry block must have 1 arguments to match function signature}}
"tile.kernel"() <{sym_name = "arity", function_type = (index) -> (), grid = 1 : i64}> ({
  "tile.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{operands #0 and #1 are both named "A"; operand names must be unique}}
tile.kernel @dup(%A: memref<?xf32> {tile.name = "A"}, %B: memref<?xf32> {tile.name = "A"}) grid(1) {
  tile.return
}

// -----

// expected-error @+1 {{unknown tile dialect argument attribute 'tile.label'; the tile dialect defines 'tile.name' and 'tile.nondecreasing'}}
tile.kernel @unknown_arg_attr(%A: memref<?xf32> {tile.label = "A"}) grid(1) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.name' of argument #0 must be a non-empty string}}
tile.kernel @name_not_string(%A: memref<?xf32> {tile.name = 3}) grid(1) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.name' names operands of a tile.kernel}}
func.func @name_on_func(%A: memref<?xf32> {tile.name = "A"}) {
  return
}

// -----

func.func @outside() {
  // expected-error @+1 {{must be nested in a tile.kernel}}
  %p = tile.program_id 0
  return
}

// -----

tile.kernel @pid_range() grid(2) {
  // expected-error @+1 {{grid dimension 2 is out of range: kernel @pid_range has a grid of rank 2 (dimensions 0 to 1)}}
  %p = tile.program_id 2
  tile.return
}

// -----

tile.kernel @nprog_range() grid(1) {
  // expected-error @+1 {{grid dimension 1 is out of range}}
  %p = tile.num_programs 1
  tile.return
}

// -----

tile.kernel @load_shared() grid(1) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{source must be a global memref, but has memory space #gpu.address_space<workgroup>}}
  %t = tile.load %s[%c0, %c0] : memref<64x64xf32, #gpu.address_space<workgroup>> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @load_rank0(%A: memref<f32>) grid(1) {
  // expected-error @+1 {{source must have rank 1 or more}}
  %t = tile.load %A[] : memref<f32> -> tensor<4xf32>
  tile.return
}

// -----

tile.kernel @load_indices(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expects 2 block indices, one per dimension of the source, but got 1}}
  %t = tile.load %A[%c0] : memref<?x?xf32> -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @load_offsets(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expects 'offset' to have 2 values, one per dimension of the source, but got 1}}
  %t = tile.load %A[%c0, %c0] offset [%c0] : memref<?x?xf32> -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @load_bounds(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expects 'bounds' to have 2 values, one per dimension of the source, but got 3}}
  %t = tile.load %A[%c0, %c0] bounds [%c0, %c0, %c0] : memref<?x?xf32> -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @load_tile_rank(%A: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tile rank 2 must be between 1 and the source rank 1}}
  %t = tile.load %A[%c0] : memref<?xf32> -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @load_elem(%A: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tile element type 'bf16' does not match the source element type 'f32'}}
  %t = tile.load %A[%c0] : memref<?xf32> -> tensor<4xbf16>
  tile.return
}

// -----

tile.kernel @load_empty_tile(%A: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tile dimensions must be positive, got 0}}
  %t = tile.load %A[%c0] : memref<?xf32> -> tensor<0xf32>
  tile.return
}

// -----

tile.kernel @load_padding(%A: memref<?xbf16>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{padding must be a constant of the element type bf16, e.g. padding(0.0 : bf16)}}
  %t = tile.load %A[%c0] padding(0.0 : f32) : memref<?xbf16> -> tensor<4xbf16>
  tile.return
}

// -----

tile.kernel @store_rank(%A: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %t = arith.constant dense<0.0> : tensor<4x4xf32>
  // expected-error @+1 {{tile rank 2 must be between 1 and the destination rank 1}}
  tile.store %t, %A[%c0] : tensor<4x4xf32> -> memref<?xf32>
  tile.return
}

// -----

tile.kernel @store_add_index(%A: memref<?xindex>) grid(1) {
  %c0 = arith.constant 0 : index
  %t = tile.iota dim 0 : tensor<4xindex>
  // expected-error @+1 {{'combine add' needs an integer or float element type}}
  tile.store %t, %A[%c0] combine add : tensor<4xindex> -> memref<?xindex>
  tile.return
}

// -----

tile.kernel @alloc_global() grid(1) {
  // expected-error @+1 {{allocates shared memory: the result type must be in #gpu.address_space<workgroup>, got 'memref<4xf32>'}}
  %s = tile.alloc_shared : memref<4xf32>
  tile.return
}

// -----

tile.kernel @alloc_layout() grid(1) {
  // expected-error @+1 {{shared buffers use the identity layout}}
  %s = tile.alloc_shared : memref<4x4xf32, strided<[1, 4]>, #gpu.address_space<workgroup>>
  tile.return
}

// -----

tile.kernel @alloc_rank0() grid(1) {
  // expected-error @+1 {{shared buffers must have rank 1 or more}}
  %s = tile.alloc_shared : memref<f32, #gpu.address_space<workgroup>>
  tile.return
}

// -----

tile.kernel @alloc_empty() grid(1) {
  // expected-error @+1 {{shared buffer dimensions must be positive, got 4x0}}
  %s = tile.alloc_shared : memref<4x0xf32, #gpu.address_space<workgroup>>
  tile.return
}

// -----

tile.kernel @copy_global_global(%A: memref<?x?xf32>, %B: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copies between global memory and a shared buffer: exactly one side must be in #gpu.address_space<workgroup>}}
  tile.copy %A[%c0, %c0] -> %B[%c0] : memref<?x?xf32> -> memref<?x?xf32>
  tile.return
}

// -----

tile.kernel @copy_slots(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<4x64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{expects fewer slot indices (2) than the shared buffer's rank (2)}}
  tile.copy %A[%c0, %c0] -> %s[%c0, %c0] : memref<?x?xf32> -> memref<4x64xf32, #gpu.address_space<workgroup>>
  tile.return
}

// -----

tile.kernel @copy_store_padding(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<4x64x64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{padding applies to copies from global memory}}
  tile.copy %s[%c0] -> %A[%c0, %c0] padding(0.0 : f32) : memref<4x64x64xf32, #gpu.address_space<workgroup>> -> memref<?x?xf32>
  tile.return
}

// -----

tile.kernel @copy_global_indices(%A: memref<?x?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<4x64x64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{expects 2 block indices, one per dimension of the source, but got 1}}
  tile.copy %A[%c0] -> %s[%c0] : memref<?x?xf32> -> memref<4x64x64xf32, #gpu.address_space<workgroup>>
  tile.return
}

// -----

tile.kernel @copy_elem(%A: memref<?x?xbf16>) grid(1) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<4x64x64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{tile element type 'f32' does not match the source element type 'bf16'}}
  tile.copy %A[%c0, %c0] -> %s[%c0] : memref<?x?xbf16> -> memref<4x64x64xf32, #gpu.address_space<workgroup>>
  tile.return
}

// -----

tile.kernel @read_global(%A: memref<4x64xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expects a shared buffer in #gpu.address_space<workgroup>, but got memory space <<NULL ATTRIBUTE>>}}
  %t = tile.read %A[%c0] : memref<4x64xf32> -> tensor<64xf32>
  tile.return
}

// -----

tile.kernel @read_shape() grid(1) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<4x64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{tile shape 32 does not match the slot shape 64 of the shared buffer}}
  %t = tile.read %s[%c0] : memref<4x64xf32, #gpu.address_space<workgroup>> -> tensor<32xf32>
  tile.return
}

// -----

tile.kernel @read_elem() grid(1) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<4x64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{tile element type 'f16' does not match the shared buffer element type 'f32'}}
  %t = tile.read %s[%c0] : memref<4x64xf32, #gpu.address_space<workgroup>> -> tensor<64xf16>
  tile.return
}

// -----

tile.kernel @write_slots() grid(1) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  %t = arith.constant dense<0.0> : tensor<64xf32>
  // expected-error @+1 {{expects fewer slot indices (1) than the shared buffer's rank (1)}}
  tile.write %t, %s[%c0] : tensor<64xf32> -> memref<64xf32, #gpu.address_space<workgroup>>
  tile.return
}

// -----

tile.kernel @dot_rank() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16xf32>
  %b = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @+1 {{expects 2-d tiles (M x K, K x N, M x N), got ranks 1, 2, 2}}
  %d = tile.dot %a, %b, %b : tensor<16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @dot_k() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x32xf32>
  %b = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @+1 {{contraction sizes differ: lhs is 16x32 (K = 32) but rhs is 16x16 (K = 16)}}
  %d = tile.dot %a, %b, %b : tensor<16x32xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @dot_acc_shape() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x16xf32>
  %c = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @+1 {{accumulator shape 16x8 must be 16x16 (lhs rows x rhs columns)}}
  %d = tile.dot %a, %a, %c : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @dot_input_type() grid(1) {
  %a = arith.constant dense<0> : tensor<16x16xi8>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @+1 {{input element type must be bf16, f16, f32 or an fp8 type (f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ), got 'i8'}}
  %d = tile.dot %a, %a, %c : tensor<16x16xi8>, tensor<16x16xi8> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @dot_mixed_fp8() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x16xf8E4M3FNUZ>
  %b = arith.constant dense<0.0> : tensor<16x16xf8E5M2FNUZ>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @+1 {{lhs and rhs element types differ ('f8E4M3FNUZ' vs 'f8E5M2FNUZ')}}
  %d = tile.dot %a, %b, %c : tensor<16x16xf8E4M3FNUZ>, tensor<16x16xf8E5M2FNUZ> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @dot_mixed() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x16xbf16>
  %b = arith.constant dense<0.0> : tensor<16x16xf16>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @+1 {{lhs and rhs element types differ ('bf16' vs 'f16'); convert one with arith.extf/truncf}}
  %d = tile.dot %a, %b, %c : tensor<16x16xbf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @dot_acc_type() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x16xf16>
  // expected-error @+1 {{accumulates in f32, but the accumulator has element type 'f16'}}
  %d = tile.dot %a, %a, %a : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf16>
  tile.return
}

// -----

tile.kernel @reduce_axis() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-error @+1 {{axis 2 is out of range for a rank-2 tile}}
  %r = tile.reduce sum %a axis 2 : tensor<16x16xf32> -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @reduce_shape() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @+1 {{result shape 16 must be the input shape without axis 0: 8}}
  %r = tile.reduce sum %a axis 0 : tensor<16x8xf32> -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @reduce_elem() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @+1 {{result element type 'f16' must equal the input element type 'f32'}}
  %r = tile.reduce max %a axis 1 : tensor<16x8xf32> -> tensor<16xf16>
  tile.return
}

// -----

tile.kernel @reduce_complex(%t: memref<?xcomplex<f32>>) grid(1) {
  %c0 = arith.constant 0 : index
  %a = tile.load %t[%c0] : memref<?xcomplex<f32>> -> tensor<4xcomplex<f32>>
  // expected-error @+1 {{reduces integer, index or float tiles only}}
  %r = tile.reduce sum %a axis 0 : tensor<4xcomplex<f32>> -> tensor<complex<f32>>
  tile.return
}

// -----

tile.kernel @broadcast_rank() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @+1 {{result rank 3 must be the input rank 1 plus the number of new dimensions 1}}
  %b = tile.broadcast %a dims [1] : tensor<16xf32> -> tensor<16x4x4xf32>
  tile.return
}

// -----

tile.kernel @broadcast_range() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @+1 {{new dimension 2 is out of range for a rank-2 result}}
  %b = tile.broadcast %a dims [2] : tensor<16xf32> -> tensor<16x4xf32>
  tile.return
}

// -----

tile.kernel @broadcast_sorted() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @+1 {{new dimensions must be sorted and unique}}
  %b = tile.broadcast %a dims [2, 0] : tensor<16xf32> -> tensor<4x16x4xf32>
  tile.return
}

// -----

tile.kernel @broadcast_size() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @+1 {{result dimension 1 has size 8 but input dimension 0 has size 16}}
  %b = tile.broadcast %a dims [0] : tensor<16xf32> -> tensor<4x8xf32>
  tile.return
}

// -----

tile.kernel @broadcast_elem() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @+1 {{result element type 'f16' must equal the input element type 'f32'}}
  %b = tile.broadcast %a dims [0] : tensor<16xf32> -> tensor<4x16xf16>
  tile.return
}

// -----

tile.kernel @iota_dim() grid(1) {
  // expected-error @+1 {{dimension 1 is out of range for a rank-1 tile}}
  %i = tile.iota dim 1 : tensor<16xi32>
  tile.return
}

// -----

tile.kernel @iota_type() grid(1) {
  // expected-error @+1 {{element type must be a signless integer or index, got 'f32'}}
  %i = tile.iota dim 0 : tensor<16xf32>
  tile.return
}

// -----

tile.kernel @transpose_size() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @+1 {{permutation has 1 entries but the tile has rank 2}}
  %t = tile.transpose %a perm [0] : tensor<16x8xf32> -> tensor<8x16xf32>
  tile.return
}

// -----

tile.kernel @transpose_perm() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @+1 {{perm must be a permutation of 0..1}}
  %t = tile.transpose %a perm [1, 1] : tensor<16x8xf32> -> tensor<8x16xf32>
  tile.return
}

// -----

tile.kernel @transpose_rank() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @+1 {{result rank must equal the input rank}}
  %t = tile.transpose %a perm [1, 0] : tensor<16x8xf32> -> tensor<8x16x1xf32>
  tile.return
}

// -----

tile.kernel @transpose_dims() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @+1 {{result dimension 0 has size 16 but input dimension 1 has size 8}}
  %t = tile.transpose %a perm [1, 0] : tensor<16x8xf32> -> tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @transpose_elem() grid(1) {
  %a = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @+1 {{result element type must equal the input element type}}
  %t = tile.transpose %a perm [1, 0] : tensor<16x8xf32> -> tensor<8x16xf16>
  tile.return
}
