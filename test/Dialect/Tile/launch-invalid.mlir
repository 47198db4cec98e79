// RUN: tiletag-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{the launch grid has 1 extents but the kernel's grid has rank 2}}
tile.kernel @rank(%X: memref<?xf32> {tile.name = "X"}) grid(2) attributes {
    tile.launch = #tile.launch<sizes = [N = 4], grid = [N], shapes = [X = [N]]>} {
  tile.return
}

// -----

// expected-error @+1 {{the launch gives no shape for memref operand 'Y'}}
tile.kernel @missing(%X: memref<?xf32> {tile.name = "X"}, %Y: memref<?xf32> {tile.name = "Y"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 4], grid = [N], shapes = [X = [N]]>} {
  tile.return
}

// -----

// expected-error @+1 {{the launch shape of 'X' has 2 dimensions but the operand has rank 1}}
tile.kernel @shape_rank(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 4], grid = [N], shapes = [X = [N, N]]>} {
  tile.return
}

// -----

// expected-error @+1 {{dimension 1 of 'X' is static (64), so its launch shape must be that constant}}
tile.kernel @static_dim(%X: memref<?x64xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 4], grid = [N], shapes = [X = [N, N]]>} {
  tile.return
}

// -----

// expected-error @+1 {{the launch shapes name 'Z', which is not a memref operand of the kernel}}
tile.kernel @extra(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 4], grid = [N], shapes = [X = [N], Z = [N]]>} {
  tile.return
}

// -----

// expected-error @+1 {{'tile.launch' describes how to launch a tile.kernel, not 'func.func'}}
func.func @not_kernel() attributes {
    tile.launch = #tile.launch<sizes = [N = 4], grid = [N], shapes = []>} {
  return
}

// -----

// expected-error @+1 {{'tile.launch' must be a #tile.launch<...> attribute}}
tile.kernel @kind() grid(1) attributes {tile.launch = 3} {
  tile.return
}

// -----

// expected-error @+1 {{unknown tile dialect attribute 'tile.lunch'}}
tile.kernel @typo() grid(1) attributes {tile.lunch = 3} {
  tile.return
}

// -----

// expected-error @+1 {{size 'N' is declared twice}}
tile.kernel @twice() grid(1) attributes {tile.launch = #tile.launch<sizes = [N = 4, N = 5], grid = [N], shapes = []>} {
  tile.return
}

// -----

// expected-error @+1 {{size 'N' has a negative default -4}}
tile.kernel @negative() grid(1) attributes {tile.launch = #tile.launch<sizes = [N = -4], grid = [N], shapes = []>} {
  tile.return
}

// -----

// expected-error @+1 {{a grid has 1 to 3 extents, got 4}}
tile.kernel @grid4() grid(1) attributes {tile.launch = #tile.launch<sizes = [N = 4], grid = [N, N, N, N], shapes = []>} {
  tile.return
}

// -----

// expected-error @+1 {{operand 'X' has two shapes}}
tile.kernel @two_shapes(%X: memref<?xf32> {tile.name = "X"}) grid(1) attributes {tile.launch = #tile.launch<sizes = [N = 4], grid = [N], shapes = [X = [N], X = [N]]>} {
  tile.return
}

// -----

// expected-error @+2 {{use of undeclared identifier}}
tile.kernel @undeclared() grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 4], grid = [Q], shapes = []>} {
  tile.return
}

// -----

// expected-error @+2 {{unknown launch field 'stages'; expected 'check' or 'then'}}
tile.kernel @field() grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 4], grid = [N], shapes = [], stages = 3>} {
  tile.return
}

// -----

// expected-error @+1 {{'tile.launch' names @nowhere in 'then', but there is no tile.kernel of that name}}
tile.kernel @then() grid(1) attributes {
    tile.launch = #tile.launch<sizes = [N = 4], grid = [N], shapes = [], then = [@nowhere]>} {
  tile.return
}
