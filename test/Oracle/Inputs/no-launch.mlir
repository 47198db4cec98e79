tile.kernel @k(%X: memref<?xf32>) grid(1) {
  tile.return
}
