// Two roles of 232 registers a thread: one program holds 59392 of an SM's
// 65536 registers while they run, two cannot.
// expected-warning @+2 {{allow-unverified}}
// expected-error @+1 {{occupancy 2: 2 programs whose roles hold 59392 registers (setmaxnreg) exceed the 65536 of one SM}}
tile.kernel @roles(%X: memref<?xf32>) grid(1) attributes {
    schedule.launch = #schedule.launch<warpgroups = 2, occupancy = 2>} {
  schedule.role "a" warpgroups [0] regs 232 {
  }
  schedule.role "b" warpgroups [1] regs 232 {
  }
  tile.return
}
