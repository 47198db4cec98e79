// The warp-specialized, TMA-pipelined GEMM on CDNA3: Hopper's schedule
// constructs translated into LDS.
// - Each mbarrier is a 64-bit LDS word, phase * 2^62 + pending arrivals *
//   2^32 + pending bytes, initialized to count * 2^32 = 4294967296.
// - arrive_expect_tx 32768 adds -2^32 + 32768; each TMA copy, made by the
//   producer's threads (buffer loads into the slot), meets at the role's
//   barrier and counts its 16384 bytes (-16384); the add that leaves nothing
//   pending adds 2^62 + 2^32 = 4611686022722355200 (next phase, one arrival
//   expected again).
// - The role's barrier is a software barrier between its 2 waves: a counter
//   (+1, the last wave takes -2) and a generation the others spin on.
// - The consumer spins on the phase's parity, then MFMA reads its operands
//   in place from the LDS slots; its release of the slot waits for the
//   whole role first.
// RUN: tiletag-opt %examples/gemm.mlir --tiletag-verify --tiletag-convert-to-amdgpu --canonicalize --cse | FileCheck %s

// CHECK: gpu.func @gemm(
// CHECK-SAME: tiletag.mfma = true
// CHECK-DAG: %[[INIT:.*]] = arith.constant 4294967296 : i64
// CHECK-DAG: %[[EXPECT:.*]] = arith.constant -4294934528 : i64
// CHECK-DAG: %[[COPIED:.*]] = arith.constant -16384 : i64
// CHECK-DAG: %[[NEXT:.*]] = arith.constant 4611686022722355200 : i64
// CHECK: memref.store %[[INIT]], %[[FULL:.*]][%c0] : memref<4xi64, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// Producer: wait on empty, expect the bytes on full, copy, count.
// CHECK: scf.while
// CHECK: memref.atomic_rmw addi %[[EXPECT]], %[[FULL]]
// CHECK: memref.atomic_rmw addi %[[NEXT]], %[[FULL]]
// CHECK: amdgpu.raw_buffer_load %arg0
// CHECK: memref.atomic_rmw addi %c1_i64, %[[ROLE:.*]][%c0] : (i64, memref<2xi64, #gpu.address_space<workgroup>>) -> i64
// CHECK: memref.atomic_rmw addi %c-2_i64, %[[ROLE]][%c0]
// CHECK: memref.atomic_rmw addi %[[COPIED]], %[[FULL]]
// CHECK: amdgpu.raw_buffer_load %arg1
// CHECK: memref.atomic_rmw addi %[[COPIED]], %[[FULL]]
// Consumer: wait on full, MFMA from the slots, release.
// CHECK: scf.while
// CHECK: memref.atomic_rmw addi %c0_i64, %[[FULL]]
// CHECK: memref.load %{{.*}} : memref<{{[0-9]+}}xbf16, #gpu.address_space<workgroup>>
// CHECK: amdgpu.mfma 16x16x16
// CHECK: memref.atomic_rmw addi %c1_i64, %{{.*}}[%c0] : (i64, memref<2xi64, #gpu.address_space<workgroup>>) -> i64
// CHECK: memref.atomic_rmw addi %c-4294967296_i64
