// RUN: tiletag-opt %s --split-input-file --verify-diagnostics

tile.kernel @attach_name(%A: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{needs a non-empty tag name}}
  %t = tag.attach %c0 as ""() : index
  tile.return
}

// -----

tile.kernel @field_index() grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{field index must be non-negative, got -1}}
  %f = tag.field %c0["A", -1] : index
  tile.return
}

// -----

tile.kernel @field_name() grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{needs a non-empty tag name}}
  %f = tag.field %c0["", 0] : index
  tile.return
}

// -----

tile.kernel @carries_name() grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{needs a non-empty tag name}}
  tag.assert_carries %c0, ""(%c0) : index
  tile.return
}

// -----

tile.kernel @assert_types() grid(1) {
  %c0 = arith.constant 0 : index
  %i = arith.constant 0 : i32
  // expected-error @+1 {{all of {lhs, rhs} have same type}}
  "tag.assert"(%c0, %i) <{predicate = 0 : i32}> : (index, i32) -> ()
  tile.return
}

// -----

tile.kernel @affine_arity() grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{the integer set has 2 dimensions and 1 symbols, so it needs 3 operands, but got 1}}
  tag.assert_affine affine_set<(d0, d1)[s0] : (d0 - d1 + s0 == 0)>(%c0)
  tile.return
}

// -----

tile.kernel @label_not_array(%A: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tag.labels' must be a non-empty array of #tag.label}}
  %t = tile.load %A[%c0] {tag.labels = 3} : memref<?xf32> -> tensor<4xf32>
  tile.return
}

// -----

tile.kernel @label_no_result() grid(1) {
  // expected-error @+1 {{'tag.labels' tags the operation's first result, but this operation has no results}}
  tile.return {tag.labels = [#tag.label<"A", () -> ()>]}
}

// -----

tile.kernel @label_arity(%A: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tag "A" has a field map over 2 dimensions, but the operation has 1 index operands}}
  %t = tile.load %A[%c0] {tag.labels = [#tag.label<"A", (d0, d1) -> (d0)>]} : memref<?xf32> -> tensor<4xf32>
  tile.return
}

// -----

tile.kernel @label_symbols(%A: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tag fields are affine in the operation's index operands (dimensions); symbols are not allowed}}
  %t = tile.load %A[%c0] {tag.labels = [#tag.label<"A", (d0)[s0] -> (d0 + s0)>]} : memref<?xf32> -> tensor<4xf32>
  tile.return
}

// -----

tile.kernel @label_empty_name(%A: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a tag needs a non-empty name}}
  %t = tile.load %A[%c0] {tag.labels = [#tag.label<"", (d0) -> (d0)>]} : memref<?xf32> -> tensor<4xf32>
  tile.return
}

// -----

tile.kernel @unknown_attr(%A: memref<?xf32>) grid(1) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{unknown tag dialect attribute 'tag.lables'; the tag dialect defines 'tag.labels', 'tag.contract', 'tag.program_map' and 'tag.verified'}}
  %t = tile.load %A[%c0] {tag.lables = []} : memref<?xf32> -> tensor<4xf32>
  tile.return
}

// -----

// expected-error @+1 {{'tag.verified' is a proof stamp: the hash string of the kernel the checker proved}}
tile.kernel @verified_value() grid(1) attributes {tag.verified = 1} {
  tile.return
}

// -----

// expected-error @+1 {{the contract names @missing, which is not a tile.kernel of this module}}
tile.kernel @contract_missing(%A: memref<?xf32>) grid(1) attributes {tag.contract = @missing} {
  tile.return
}

// -----

// expected-error @+1 {{a kernel cannot be its own contract}}
tile.kernel @contract_self(%A: memref<?xf32>) grid(1) attributes {tag.contract = @contract_self} {
  tile.return
}

// -----

// expected-error @+1 {{operand 0 of the reference kernel @ref is A : 'memref<?xf16>', but here it is A : 'memref<?xf32>' (a reference has the kernel's operands)}}
tile.kernel @contract_operands(%A: memref<?xf32> {tile.name = "A"}) grid(1) attributes {tag.contract = @ref} {
  tile.return
}
tile.kernel @ref(%A: memref<?xf16> {tile.name = "A"}) grid(1) {
  tile.return
}

// -----

// expected-error @+1 {{'tag.contract' belongs on a tile.kernel and names its reference kernel (@name)}}
tile.kernel @contract_string(%A: memref<?xf32>) grid(1) attributes {tag.contract = "ref"} {
  tile.return
}

// -----

// expected-error @+1 {{'tag.program_map' needs the kernel's contract ('tag.contract')}}
tile.kernel @program_map_no_contract(%A: memref<?xf32>) grid(1) attributes {tag.program_map = affine_map<(d0) -> (d0)>} {
  tile.return
}

// -----

// expected-error @+1 {{'tag.program_map' must map the 1 program ids of the reference to the 2 of this kernel (then, optionally, the values of the loops around its store), with at most 0 symbols (the launch sizes, in order); got affine_map<(d0) -> (d0)>}}
tile.kernel @program_map_rank(%A: memref<?xf32> {tile.name = "A"}) grid(2) attributes {tag.contract = @pm_ref, tag.program_map = affine_map<(d0) -> (d0)>} {
  tile.return
}
tile.kernel @pm_ref(%A: memref<?xf32> {tile.name = "A"}) grid(1) {
  tile.return
}

// -----

// expected-error @+1 {{'tag.program_map' belongs on a tile.kernel and is an affine map}}
tile.kernel @program_map_value(%A: memref<?xf32>) grid(1) attributes {tag.program_map = 3} {
  tile.return
}

// -----

// expected-error @+1 {{'tag.program_map' must map the 1 program ids of the reference to the 1 of this kernel (then, optionally, the values of the loops around its store), with at most 1 symbols (the launch sizes, in order); got affine_map<(d0)[s0, s1] -> (d0 mod s1)>}}
tile.kernel @program_map_symbols(%A: memref<?xf32> {tile.name = "A"}) grid(1) attributes {tag.contract = @pm_sym_ref, tag.program_map = affine_map<(d0)[s0, s1] -> (d0 mod s1)>,
    tile.launch = #tile.launch<sizes = [N = 128], grid = [N ceildiv 128], shapes = [A = [N]]>} {
  tile.return
}
tile.kernel @pm_sym_ref(%A: memref<?xf32> {tile.name = "A"}) grid(1) {
  tile.return
}
