// Return modes of the transform.tiletag ops: a silenceable failure with a
// reason when a rewrite does not apply (payload unchanged), a silenceable
// failure with a counterexample when a proof fails, a definite failure for
// a handle to something that is not a kernel.
// RUN: tiletag-opt %s --split-input-file --transform-interpreter --verify-diagnostics

// A kernel with a schedule: split before scheduling.
tile.kernel @scheduled(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@scheduled has a schedule; split the reduction before scheduling}}
    %s = transform.tiletag.split_k %k splits(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// No reduction loop feeds the store.
tile.kernel @copy(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@copy: the stored value is not the result of an scf.for beside the store}}
    %s = transform.tiletag.split_k %k splits(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A handle to a non-kernel op (the root module): a definite failure.
// expected-error @below {{transform.tiletag.verify expects tile.kernel ops, got 'builtin.module'}}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.tiletag.verify %root : !transform.any_op
    transform.yield
  }
}

// -----

// A K loop that stops one block early: the contract checker refutes it, and
// the failure carries the counterexample and the replay command.
// expected-note @below {{at }}
tile.kernel @short(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                   %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tag.contract = @short_reference,
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kblocks = arith.ceildivui %K, %c64 : index
  %kshort = arith.floordivsi %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %c0 to %kshort step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
tile.kernel @short_reference(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                             %C: memref<?x?xf32> {tile.name = "C"})
    grid(2) attributes {
        tile.launch = #tile.launch<sizes = [M = 256, N = 256, K = 320], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]], check = "gemm">} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %kblocks = arith.ceildivui %K, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %c0 to %kblocks step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "short"} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@short does not verify:}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{replay on the CPU: tiletag-run}}
    // expected-note @below {{in the kernel, here}}
    // expected-note @below {{in the reference, here}}
    // expected-note @below {{the reference's tile.store here}}
    transform.tiletag.verify %k : !transform.any_op
    transform.yield
  }
}

// -----

// stage_loads wants a loop; warp_specialize wants a staged loop.
tile.kernel @plain(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64, C = 256], grid = [R ceildiv 16], shapes = [X = [R, C], Y = [R, C]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  scf.for %j = %c0 to %c4 step %c1 {
    %x = tile.load %X[%p, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x64xf32>
    tile.store %x, %Y[%p, %j] : tensor<16x64xf32> -> memref<?x?xf32>
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.structured.match ops{["scf.for"]} in %k : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expects an scf.for, got 'tile.kernel'}}
    %a = transform.tiletag.stage_loads %k stages(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @unstaged(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64, C = 256], grid = [R ceildiv 16], shapes = [X = [R, C], Y = [R, C]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  scf.for %j = %c0 to %c4 step %c1 {
    %x = tile.load %X[%p, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x64xf32>
    tile.store %x, %Y[%p, %j] : tensor<16x64xf32> -> memref<?x?xf32>
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the loop has no copies into ring slots: stage its loads first (transform.tiletag.stage_loads)}}
    %a = transform.tiletag.warp_specialize %loop : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Rings beyond shared memory, register budgets setmaxnreg cannot set.
tile.kernel @budgets(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64, C = 256], grid = [R ceildiv 16], shapes = [X = [R, C], Y = [R, C]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  scf.for %j = %c0 to %c4 step %c1 {
    %x = tile.load %X[%p, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x64xf32>
    tile.store %x, %Y[%p, %j] : tensor<16x64xf32> -> memref<?x?xf32>
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the rings need 262144 bytes of shared memory with what the kernel has already; a CTA has 232448 (227 KiB on sm_90a)}}
    %big = transform.tiletag.stage_loads %loop stages(64) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @regs(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64, C = 256], grid = [R ceildiv 16], shapes = [X = [R, C], Y = [R, C]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  scf.for %j = %c0 to %c4 step %c1 {
    %x = tile.load %X[%p, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x64xf32>
    tile.store %x, %Y[%p, %j] : tensor<16x64xf32> -> memref<?x?xf32>
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %loop stages(2) : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{register budgets must be multiples of 8 in [24, 256], got 300}}
    %ws = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 300} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A reduction loop that carries a second value: splitting would leave it
// partial.
tile.kernel @two_carried(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64, C = 256], grid = [R ceildiv 16], shapes = [X = [R, C], Y = [R, C]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %sum:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero, %last = %zero) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
    %x = tile.load %X[%p, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x64xf32>
    %s = arith.addf %acc, %x : tensor<16x64xf32>
    scf.yield %s, %x : tensor<16x64xf32>, tensor<16x64xf32>
  }
  tile.store %sum#0, %Y[%p, %c0] : tensor<16x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@two_carried: the reduction loop carries other values, which a split would leave partial}}
    %s = transform.tiletag.split_k %k splits(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// coarsen: a grid dimension the kernel does not have.
tile.kernel @one_dim(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@one_dim has 1 grid dimensions; there is no dimension 1}}
    %w = transform.tiletag.coarsen %k dim(1) factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// coarsen: an extent that is not `size ceildiv constant` (one program per
// split).
tile.kernel @per_split(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256, S = 4], grid = [S], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@per_split: the launch's grid extent for dimension 0 must be `size ceildiv constant`}}
    %w = transform.tiletag.coarsen %k dim(0) factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// coarsen: the kernel reads the grid's extent, which coarsening changes.
tile.kernel @extent(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %n = tile.num_programs 0
  %q = arith.subi %n, %p : index
  %t = tile.load %X[%q] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@extent reads tile.num_programs 0, whose value coarsening changes}}
    %w = transform.tiletag.coarsen %k dim(0) factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Cooperative consumers: each takes an equal share of the loop's values,
// the register budgets fit the register file, and no op combines the
// values of two consumers.
tile.kernel @two_sums(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64, C = 256], grid = [R ceildiv 16], shapes = [X = [R, C], Y = [R, C]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %sum:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %zero, %b = %zero) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
    %x = tile.load %X[%p, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x64xf32>
    %sa = arith.addf %a, %x : tensor<16x64xf32>
    %sb = arith.subf %b, %x : tensor<16x64xf32>
    scf.yield %sa, %sb : tensor<16x64xf32>, tensor<16x64xf32>
  }
  %both = arith.addf %sum#0, %sum#1 : tensor<16x64xf32>
  tile.store %both, %Y[%p, %c0] : tensor<16x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %loop stages(2) : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the loop carries 2 values; 3 consumers need a multiple of 3, as many per consumer}}
    %ws = transform.tiletag.warp_specialize %staged {consumer_regs = 144, consumers = 3} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @two_sums(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64, C = 256], grid = [R ceildiv 16], shapes = [X = [R, C], Y = [R, C]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %sum:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %zero, %b = %zero) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
    %x = tile.load %X[%p, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x64xf32>
    %sa = arith.addf %a, %x : tensor<16x64xf32>
    %sb = arith.subf %b, %x : tensor<16x64xf32>
    scf.yield %sa, %sb : tensor<16x64xf32>, tensor<16x64xf32>
  }
  %both = arith.addf %sum#0, %sum#1 : tensor<16x64xf32>
  tile.store %both, %Y[%p, %c0] : tensor<16x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %loop stages(2) : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the register budgets need 40 + 2 x 256 registers per thread of a warpgroup; the register file has 512 (64K registers for 128 threads)}}
    %ws = transform.tiletag.warp_specialize %staged {producer_regs = 40, consumer_regs = 256, consumers = 2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

tile.kernel @two_sums(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64, C = 256], grid = [R ceildiv 16], shapes = [X = [R, C], Y = [R, C]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %sum:2 = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %zero, %b = %zero) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
    %x = tile.load %X[%p, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x64xf32>
    %sa = arith.addf %a, %x : tensor<16x64xf32>
    %sb = arith.subf %b, %x : tensor<16x64xf32>
    scf.yield %sa, %sb : tensor<16x64xf32>, tensor<16x64xf32>
  }
  %both = arith.addf %sum#0, %sum#1 : tensor<16x64xf32>
  tile.store %both, %Y[%p, %c0] : tensor<16x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %loop stages(2) : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{an op combines the values of different consumers; cooperative consumers must compute and store independently}}
    %ws = transform.tiletag.warp_specialize %staged {consumers = 2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// async_mma: the consumer has no dot to issue.
tile.kernel @no_dot(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64, C = 256], grid = [R ceildiv 16], shapes = [X = [R, C], Y = [R, C]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %sum = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (tensor<16x64xf32>) {
    %x = tile.load %X[%p, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x64xf32>
    %s = arith.addf %a, %x : tensor<16x64xf32>
    scf.yield %s : tensor<16x64xf32>
  }
  tile.store %sum, %Y[%p, %c0] : tensor<16x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %loop stages(2) : (!transform.any_op) -> !transform.any_op
    %ws = transform.tiletag.warp_specialize %staged : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{role "consumer" has no tile.dot}}
    %mma = transform.tiletag.async_mma %ws wait_depth(1) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// async_mma: as many groups in flight as slots, and the producer would wait
// for a release that never comes.
tile.kernel @deep(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                  %C: memref<?x?xf32> {tile.name = "C"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [M = 128, N = 128, K = 256], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %staged = transform.tiletag.stage_loads %loop stages(2) : (!transform.any_op) -> !transform.any_op
    %ws = transform.tiletag.warp_specialize %staged : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{wait_depth 2 must be below the 2 stages: the producer would wait for a slot never released}}
    %mma = transform.tiletag.async_mma %ws wait_depth(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// async_mma on a plain loop: without a ring, nothing may stay in flight.
tile.kernel @plain(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"},
                   %C: memref<?x?xf32> {tile.name = "C"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [M = 128, N = 128, K = 256], grid = [M ceildiv 128, N ceildiv 128],
                               shapes = [A = [M, K], B = [K, N], C = [M, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %i = tile.program_id 0
  %j = tile.program_id 1
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) {
    %a = tile.load %A[%i, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %b = tile.load %B[%k, %j] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %sum, %C[%i, %j] : tensor<128x128xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{without a ring (transform.tiletag.stage_loads and warp_specialize) the next step's loads overwrite what an in-flight dot reads: wait_depth must be 0, got 1}}
    %mma = transform.tiletag.async_mma %loop wait_depth(1) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// skip_empty_blocks: two stores.
tile.kernel @two_stores(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.store %t, %X[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@two_stores must write global memory through exactly one tile.store}}
    %g = transform.tiletag.skip_empty_blocks %k : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// skip_empty_blocks: the store's block is computed inside the loop that
// does the work.
tile.kernel @inner(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?x?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [R = 64, C = 256], grid = [R ceildiv 16], shapes = [X = [R, C], Y = [R, C]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  scf.for %j = %c0 to %c4 step %c1 {
    %x = tile.load %X[%p, %j] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x64xf32>
    tile.store %x, %Y[%p, %j] : tensor<16x64xf32> -> memref<?x?xf32>
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the store's block is computed inside a region; the guard must come before the work, in the kernel's body}}
    %g = transform.tiletag.skip_empty_blocks %k : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// With a reduction kernel: a kernel that already launches another after it.
tile.kernel @colsum(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256, K = 64], grid = [N ceildiv 128], shapes = [X = [K, N], Y = [N]], then = [@next]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %K = memref.dim %X, %c0 : memref<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %s = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) {
    %t = tile.load %X[%k, %p] padding(0.0 : f32) : memref<?x?xf32> -> tensor<128xf32>
    %n = arith.addf %acc, %t : tensor<128xf32>
    scf.yield %n : tensor<128xf32>
  }
  tile.store %s, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
tile.kernel @next(%Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [Y = [N]]>} {
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "colsum"} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@colsum cannot be split with a reduction kernel: it already launches other kernels after it ('then')}}
    %s = transform.tiletag.split_k %k splits(2) reduction_kernel : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// With a reduction kernel: the output is used other than by its store.
tile.kernel @colsum(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256, K = 64], grid = [N ceildiv 128], shapes = [X = [K, N], Y = [N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %n0 = memref.dim %Y, %c0 : memref<?xf32>
  %K = memref.dim %X, %c0 : memref<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %s = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) {
    %t = tile.load %X[%k, %p] padding(0.0 : f32) : memref<?x?xf32> -> tensor<128xf32>
    %n = arith.addf %acc, %t : tensor<128xf32>
    scf.yield %n : tensor<128xf32>
  }
  tile.store %s, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "colsum"} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@colsum cannot be split with a reduction kernel: the output Y is used other than by the store; the kernel gives it up for the workspace}}
    %s = transform.tiletag.split_k %k splits(2) reduction_kernel : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// With a reduction kernel: a store index the reduction kernel cannot compute
// (from a scalar operand).
tile.kernel @colsum(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}, %off: index {tile.name = "off"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256, K = 64], grid = [N ceildiv 128], shapes = [X = [K, N], Y = [N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %q = arith.addi %p, %off : index
  %K = memref.dim %X, %c0 : memref<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %s = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) {
    %t = tile.load %X[%k, %p] padding(0.0 : f32) : memref<?x?xf32> -> tensor<128xf32>
    %n = arith.addf %acc, %t : tensor<128xf32>
    scf.yield %n : tensor<128xf32>
  }
  tile.store %s, %Y[%q] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "colsum"} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@colsum cannot be split with a reduction kernel: a store index depends on a block argument (a loop variable or an operand), which the reduction kernel does not have}}
    %s = transform.tiletag.split_k %k splits(2) reduction_kernel : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// With a reduction kernel: the name of the new kernel is taken.
tile.kernel @colsum(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256, K = 64], grid = [N ceildiv 128], shapes = [X = [K, N], Y = [N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %K = memref.dim %X, %c0 : memref<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %s = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) {
    %t = tile.load %X[%k, %p] padding(0.0 : f32) : memref<?x?xf32> -> tensor<128xf32>
    %n = arith.addf %acc, %t : tensor<128xf32>
    scf.yield %n : tensor<128xf32>
  }
  tile.store %s, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
tile.kernel @colsum_reduce(%Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [Y = [N]]>} {
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "colsum"} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@colsum cannot be split with a reduction kernel: the name @colsum_reduce is taken}}
    %s = transform.tiletag.split_k %k splits(2) reduction_kernel : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// fuse_epilogue: the kernel runs nothing after it.
tile.kernel @k(%X: memref<?xf32> {tile.name = "X"}, %T: memref<?xf32> {tile.name = "T"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], T = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %T[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "k"} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot fuse the epilogue of @k: its launch does not run exactly one kernel after it}}
    %f = transform.tiletag.fuse_epilogue %k : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// fuse_epilogue: the epilogue runs on another grid.
tile.kernel @k(%X: memref<?xf32> {tile.name = "X"}, %T: memref<?xf32> {tile.name = "T"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], T = [N]], then = [@epi]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %T[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
tile.kernel @epi(%T: memref<?xf32> {tile.name = "T"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 64], shapes = [T = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %T[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  %u = arith.addf %t, %t : tensor<128xf32>
  tile.store %u, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "k"} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot fuse the epilogue of @k: @epi runs on another grid (rank or extents)}}
    %f = transform.tiletag.fuse_epilogue %k : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// fuse_epilogue: the kernel stores the workspace twice.
tile.kernel @k(%X: memref<?xf32> {tile.name = "X"}, %T: memref<?xf32> {tile.name = "T"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], T = [N]], then = [@epi]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %T[%p] : tensor<128xf32> -> memref<?xf32>
  tile.store %t, %T[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
tile.kernel @epi(%T: memref<?xf32> {tile.name = "T"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [T = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %T[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  %u = arith.addf %t, %t : tensor<128xf32>
  tile.store %u, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "k"} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot fuse the epilogue of @k: it must store one operand, once, in its body (not in a loop or branch), and use it for nothing else}}
    %f = transform.tiletag.fuse_epilogue %k : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// retile: arithmetic on the program id (a row offset) would keep counting
// rows of the old tile.
tile.kernel @offset_rows(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %c1 = arith.constant 1 : index
  %p = tile.program_id 0
  %q = arith.addi %p, %c1 : index
  %t = tile.load %X[%q] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error-re @below {{cannot retile @offset_rows: tile.program_id 0 is used by 'arith.addi' at line {{[0-9]+}}; it may only be a block index of a tile access (without offsets, along a dimension the tile spans)}}
    %w = transform.tiletag.retile %k dim(0) factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// retile: the program id indexes the dimension a reduction reduces (each
// program sums a column block); growing it would change what is summed.
tile.kernel @column_sums(%X: memref<?x?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 64], shapes = [X = [N, N], Y = [N]]>} {
  %c0 = arith.constant 0 : index
  %p = tile.program_id 0
  %t = tile.load %X[%c0, %p] padding(0.0 : f32) : memref<?x?xf32> -> tensor<16x64xf32>
  %s = tile.reduce sum %t axis 1 : tensor<16x64xf32> -> tensor<16xf32>
  tile.store %s, %Y[%c0] : tensor<16xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error-re @below {{cannot retile @column_sums: a tile dimension would both grow ('tile.load' at line {{[0-9]+}}) and keep its extent (the dimension 'tile.reduce' at line {{[0-9]+}} reduces)}}
    %w = transform.tiletag.retile %k dim(0) factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// retile: a tile past the largest TMA box / wgmma extent.
tile.kernel @long_rows(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot retile @long_rows: a tile of @long_rows would be tensor<512xf32>, more than 256 elements along a dimension (the largest TMA box and wgmma tile)}}
    %w = transform.tiletag.retile %k dim(0) factor(4) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// retile: a constant that is not a splat cannot grow.
tile.kernel @ramp(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 8], grid = [N ceildiv 4], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<4xf32>
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = arith.mulf %t, %w : tensor<4xf32>
  tile.store %s, %Y[%p] : tensor<4xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error-re @below {{cannot retile @ramp: the constant at line {{[0-9]+}} would grow, and is not a splat}}
    %w = transform.tiletag.retile %k dim(0) factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// retile: a staged kernel (shared memory) is retiled before staging.
tile.kernel @staged(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %c0 = arith.constant 0 : index
  %p = tile.program_id 0
  %buf = tile.alloc_shared : memref<1x128xf32, 3>
  tile.copy %X[%p] -> %buf[%c0] padding(0.0 : f32) : memref<?xf32> -> memref<1x128xf32, 3>
  %t = tile.read %buf[%c0] : memref<1x128xf32, 3> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@staged uses shared memory; retile the plain kernel}}
    %w = transform.tiletag.retile %k dim(0) factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// reduction_step: the loop carries two values (the contract checker relates
// a larger step of a loop that carries one dot's accumulator).
tile.kernel @two_carried(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 64, K = 256], grid = [N ceildiv 64], shapes = [A = [N, K], B = [K, N], C = [N, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r:2 = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero, %other = %zero) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
    %a = tile.load %A[%p, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    %b = tile.load %B[%k, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %a, %b, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %d, %other : tensor<64x64xf32>, tensor<64x64xf32>
  }
  tile.store %r#0, %C[%p, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the loop must carry one value, the accumulator of a tile.dot (acc = tile.dot(a, b, acc))}}
    %w = transform.tiletag.reduction_step %l factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// reduction_step: a loop that does not start at block 0.
tile.kernel @from_one(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 64, K = 256], grid = [N ceildiv 64], shapes = [A = [N, K], B = [K, N], C = [N, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %k = %c1 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) {
    %a = tile.load %A[%p, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    %b = tile.load %B[%k, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %a, %b, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %r, %C[%p, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the loop must run from 0 (over block indices)}}
    %w = transform.tiletag.reduction_step %l factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// reduction_step: the induction variable indexes no tile (the same product
// added four times): there is no reduction step to widen.
tile.kernel @same_tiles(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 64, K = 256], grid = [N ceildiv 64], shapes = [A = [N, K], B = [K, N], C = [N, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %a = tile.load %A[%p, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
  %b = tile.load %B[%c0, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x64xbf16>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) {
    %d = tile.dot %a, %b, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %r, %C[%p, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error-re @below {{cannot widen the reduction step of @same_tiles: the loop's induction variable does not index the dimension the tile.dot at line {{[0-9]+}} contracts}}
    %w = transform.tiletag.reduction_step %l factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// reduction_step: a K tile past the largest TMA box.
tile.kernel @deep(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 64, K = 256], grid = [N ceildiv 64], shapes = [A = [N, K], B = [K, N], C = [N, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) {
    %a = tile.load %A[%p, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %b = tile.load %B[%k, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x64xbf16>
    %d = tile.dot %a, %b, %acc : tensor<64x128xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %r, %C[%p, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot widen the reduction step of @deep: a tile of @deep would be tensor<64x512xbf16>, more than 256 elements along a dimension (the largest TMA box and wgmma tile)}}
    %w = transform.tiletag.reduction_step %l factor(4) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// async_mma: a dot whose contracted extent spans two 128-byte swizzle
// panels (a reduction step of 128 bf16) with a B of two column panels is
// not served by the Hopper lowering's wgmma.
tile.kernel @deep_step(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 64, K = 256], grid = [N ceildiv 64], shapes = [A = [N, K], B = [K, N], C = [N, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (tensor<64x128xf32>) {
    %a = tile.load %A[%p, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x128xbf16>
    %b = tile.load %B[%k, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<128x128xbf16>
    %d = tile.dot %a, %b, %acc : tensor<64x128xbf16>, tensor<128x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %r, %C[%p, %c0] : tensor<64x128xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error-re @below {{wgmma cannot serve the tile.dot at line {{[0-9]+}}: its contracted extent of 128 is not one 128-byte swizzle panel (64 elements), or whole panels with B K-major or at most 64 columns}}
    %w = transform.tiletag.async_mma %l wait_depth(0) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// unroll: a loop already stepping by 2 (an unrolled loop, say).
tile.kernel @step_two(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 512], grid = [N ceildiv 512], shapes = [X = [N], Y = [N]]>} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  scf.for %j = %c0 to %c4 step %c2 {
    %t = tile.load %X[%j] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
    tile.store %t, %Y[%j] : tensor<128xf32> -> memref<?xf32>
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the loop's step must be 1}}
    %u = transform.tiletag.unroll %l factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// unroll: an assertion in the body speaks of one step.
tile.kernel @asserted(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 512], grid = [N ceildiv 512], shapes = [X = [N], Y = [N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %j = %c0 to %c4 step %c1 {
    tag.assert_range %j in [%c0, %c4), "a block of the row" : index
    %t = tile.load %X[%j] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
    tile.store %t, %Y[%j] : tensor<128xf32> -> memref<?xf32>
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the loop's body contains 'tag.assert_range' (tags and assertions speak of one step): unroll the plain loop}}
    %u = transform.tiletag.unroll %l factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// unroll: a staged kernel (shared memory) is unrolled before staging.
tile.kernel @staged_loop(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 512], grid = [N ceildiv 512], shapes = [X = [N], Y = [N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %buf = tile.alloc_shared : memref<1x128xf32, 3>
  scf.for %j = %c0 to %c4 step %c1 {
    tile.copy %X[%j] -> %buf[%c0] padding(0.0 : f32) : memref<?xf32> -> memref<1x128xf32, 3>
    %t = tile.read %buf[%c0] : memref<1x128xf32, 3> -> tensor<128xf32>
    tile.store %t, %Y[%j] : tensor<128xf32> -> memref<?xf32>
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@staged_loop uses shared memory; unroll the loop of the plain kernel}}
    %u = transform.tiletag.unroll %l factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// unroll: the handle points to a kernel, not a loop.
tile.kernel @not_a_loop(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 128], grid = [N ceildiv 128], shapes = [X = [N]]>} {
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expects an scf.for, got 'tile.kernel'}}
    %u = transform.tiletag.unroll %k factor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// unroll: at most 16 copies of a body.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.tiletag.unroll' op attribute 'factor' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 2 whose maximum value is 16}}
    %u = transform.tiletag.unroll %l factor(17) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// reduction_step divisor: a 48-deep K tile does not split in 32s.
tile.kernel @odd_depth(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 64, K = 96], grid = [N ceildiv 64], shapes = [A = [N, K], B = [K, N], C = [N, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) {
    %a = tile.load %A[%p, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<64x48xbf16>
    %b = tile.load %B[%k, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<48x64xbf16>
    %d = tile.dot %a, %b, %acc : tensor<64x48xbf16>, tensor<48x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %r, %C[%p, %c0] : tensor<64x64xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error-re @below {{cannot shorten the reduction step of @odd_depth: the tensor<64x48xbf16> tile of 'tile.load' at line {{[0-9]+}} spans no multiple of 32 elements along the dimension to divide}}
    %w = transform.tiletag.reduction_step %l divisor(32) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{takes either factor(N) (a longer step) or divisor(N) (a shorter one)}}
    %w = transform.tiletag.reduction_step %l factor(2) divisor(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{takes either factor(N) (a longer step) or divisor(N) (a shorter one)}}
    %w = transform.tiletag.reduction_step %l : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{issues dots on a matrix unit (wgmma or mfma), not tma}}
    %w = transform.tiletag.async_mma %l wait_depth(0) unit(tma) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// async_mma unit(mfma): a 48x48 tile with a K step of 8 is made of neither
// MFMA shape (16x16x16 needs K 16; 32x32x8 needs 32-multiple rows).
tile.kernel @thin_step(%A: memref<?x?xbf16> {tile.name = "A"}, %B: memref<?x?xbf16> {tile.name = "B"}, %C: memref<?x?xf32> {tile.name = "C"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 48, K = 256], grid = [N ceildiv 48], shapes = [A = [N, K], B = [K, N], C = [N, N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = tile.program_id 0
  %zero = arith.constant dense<0.0> : tensor<48x48xf32>
  %r = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (tensor<48x48xf32>) {
    %a = tile.load %A[%p, %k] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<48x8xbf16>
    %b = tile.load %B[%k, %c0] padding(0.0 : bf16) : memref<?x?xbf16> -> tensor<8x48xbf16>
    %d = tile.dot %a, %b, %acc : tensor<48x8xbf16>, tensor<8x48xbf16> -> tensor<48x48xf32>
    scf.yield %d : tensor<48x48xf32>
  }
  tile.store %r, %C[%p, %c0] : tensor<48x48xf32> -> memref<?x?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error-re @below {{mfma cannot serve the tile.dot at line {{[0-9]+}}: its 48x48x8 shape is made of neither 16x16x16 nor 32x32x8 MFMA blocks}}
    %w = transform.tiletag.async_mma %l wait_depth(0) unit(mfma) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// persist rewrites plain kernels: one with shared memory is refused.
tile.kernel @staged(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %s = tile.alloc_shared : memref<128xf32, #gpu.address_space<workgroup>>
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@staged uses shared memory; persist the plain kernel}}
    %p = transform.tiletag.persist %k : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The launch size P would be taken twice.
tile.kernel @sized(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [P = 256], grid = [P ceildiv 128], shapes = [X = [P], Y = [P]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@sized has a launch size P already}}
    %p = transform.tiletag.persist %k : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A grid extent the kernel cannot compute: S is no operand's extent.
tile.kernel @split(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [N = 256, S = 2], grid = [N ceildiv 128, S], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@split: the grid uses launch size S, which is no operand's extent}}
    %p = transform.tiletag.persist %k : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A kernel made persistent already (its program map names the tile loop).
tile.kernel @persistent(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tag.contract = @copy_reference, tag.program_map = affine_map<(d0)[s0, s1] -> (d0 mod s1, d0 floordiv s1)>,
    tile.launch = #tile.launch<sizes = [N = 256, Q = 4], grid = [Q], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
tile.kernel @copy_reference(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "persistent"} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@persistent's program map names loop values or launch sizes: it is persistent already}}
    %p = transform.tiletag.persist %k : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// persist rewrites plain kernels: one with a schedule is refused.
tile.kernel @scheduled(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [N ceildiv 128], shapes = [X = [N], Y = [N]]>,
    schedule.launch = #schedule.launch<warpgroups = 1>} {
  %p = tile.program_id 0
  %t = tile.load %X[%p] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
  tile.store %t, %Y[%p] : tensor<128xf32> -> memref<?xf32>
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %k = transform.structured.match ops{["tile.kernel"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{@scheduled has a schedule; persist the plain kernel}}
    %p = transform.tiletag.persist %k : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A ring that runs on across the iterations of the loops around its loop
// needs sequential loops only: here a branch lies between.
tile.kernel @branch(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 256], grid = [1], shapes = [X = [N], Y = [N]]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %odd = arith.remui %i, %c1 : index
    %even = arith.cmpi eq, %odd, %c0 : index
    scf.if %even {
      %zero = arith.constant dense<0.0> : tensor<128xf32>
      %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<128xf32>) {
        %t = tile.load %X[%k] padding(0.0 : f32) : memref<?xf32> -> tensor<128xf32>
        %a = arith.addf %acc, %t : tensor<128xf32>
        scf.yield %a : tensor<128xf32>
      }
      tile.store %s, %Y[%i] : tensor<128xf32> -> memref<?xf32>
    }
  }
  tile.return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loops = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %inner, %outer = transform.split_handle %loops : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{the loop sits in loops and other regions (a branch or a mapped loop); a ring that runs on across loop iterations needs sequential loops around it only}}
    %s = transform.tiletag.stage_loads %inner stages(2) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
