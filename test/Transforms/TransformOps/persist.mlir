// transform.tiletag.persist on the plain GEMM: P programs loop over the
// 128x128 tiles of C in the order the hardware launches the programs (tile
// t = pid + i P, row t mod (M ceildiv 128), column t floordiv (M ceildiv
// 128)). The result is proved against the contract
// for all sizes and every P, matches the oracle with more tiles than
// programs, fewer, and a P that divides neither, and lowers to PTX that
// ptxas accepts.
// REQUIRES: ptxas
// RUN: tiletag-opt %examples/naive/gemm.mlir --transform-preload-library="transform-library-paths=%s" --transform-interpreter -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tiletag-run %t.mlir --check --kernel gemm --size M=300,N=260,K=100,P=4 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-run %t.mlir --check --kernel gemm --size M=130,N=100,K=70,P=5 | FileCheck %s --check-prefix=ORACLE
// RUN: tiletag-opt %t.mlir --tiletag-compile-cuda="chip=sm_90a format=isa output=%t.ptx" -o /dev/null
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
//
// A program that takes floor((tiles - pid) / P) tiles in place of the
// ceiling misses the last tiles of some programs.
// RUN: sed -e 's/arith.ceildivsi/arith.divsi/' %t.mlir > %t.floor.mlir
// RUN: not diff -q %t.mlir %t.floor.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify %t.floor.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISS
// MISS: error: the kernel never stores a block of C that the reference's store here stores
//
// Tiles decoded to row 0 (t mod t) collide, and the other rows are never
// stored.
// RUN: sed -e 's/arith.remui \(%%[^,]*\), %%[^ ]* : index/arith.remui \1, \1 : index/' %t.mlir > %t.decode.mlir
// RUN: not diff -q %t.mlir %t.decode.mlir > /dev/null
// RUN: not tiletag-opt --tiletag-verify %t.decode.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DECODE
// DECODE-DAG: error: the kernel never stores a block of C that the reference's store here stores
// DECODE-DAG: error: no other program touches the elements this write accesses (write-write race between programs

// The whole pipeline of examples/scripts/gemm_persistent.mlir (the script
// ends with transform.tiletag.verify): the ring's pad steps follow each
// tile's epilogue (gemm-persistent-script.test checks the rest).
// RUN: tiletag-opt %examples/naive/gemm.mlir --transform-preload-library="transform-library-paths=%examples/scripts/gemm_persistent.mlir" --transform-interpreter -o - | FileCheck %s --check-prefix=PIPE
// PIPE-LABEL: tile.kernel @gemm(
// PIPE-SAME: schedule.verified = "
// PIPE: schedule.wait_group wgmma pending 0
// PIPE: schedule.mbarrier.arrive
// PIPE: schedule.wait_group tma pending 1
// PIPE: scf.for
// PIPE: schedule.role "producer"
// PIPE: schedule.mbarrier.arrive
// PIPE: schedule.role "consumer"

// CHECK: #[[PMAP:.*]] = affine_map<(d0, d1)[s0, s1, s2, s3] -> ((d1 * (s0 ceildiv 128) + d0) mod s3, (d1 * (s0 ceildiv 128) + d0) floordiv s3)>
// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME: grid(1)
// CHECK-SAME: tag.program_map = #[[PMAP]]
// CHECK-SAME: tag.verified = "
// CHECK-SAME: sizes = [M = 256, N = 256, K = 320, P = 132], grid = [P]
// CHECK: %[[M:.*]] = memref.dim %{{.*}}, %c0
// CHECK: %[[MT:.*]] = arith.ceildivui %[[M]], %c128
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %c1
// CHECK: %[[NT:.*]] = arith.ceildivui %[[N]], %c128
// CHECK: %[[PID:.*]] = tile.program_id 0
// CHECK: %[[P:.*]] = tile.num_programs 0
// CHECK: %[[TILES:.*]] = arith.muli %[[MT]], %[[NT]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[TILES]], %[[PID]]
// CHECK: %[[MINE:.*]] = arith.ceildivsi %[[LEFT]], %[[P]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[MINE]] step
// CHECK: %[[STEP:.*]] = arith.muli %[[I]], %[[P]]
// CHECK: %[[T:.*]] = arith.addi %[[PID]], %[[STEP]]
// CHECK: %[[ROW:.*]] = arith.remui %[[T]], %[[MT]]
// CHECK: %[[COL:.*]] = arith.divui %[[T]], %[[MT]]
// CHECK: scf.for
// CHECK: tile.load %{{.*}}[%[[ROW]], %{{.*}}]
// CHECK: tile.load %{{.*}}[%{{.*}}, %[[COL]]]
// CHECK: tile.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]]
// CHECK-NOT: tile.program_id
// CHECK-LABEL: tile.kernel @gemm_reference(
// ORACLE: check gemm: C matches

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %kernel = transform.structured.match ops{["tile.kernel"]} attributes {sym_name = "gemm"} in %root
        : (!transform.any_op) -> !transform.any_op
    %persistent = transform.tiletag.persist %kernel
        : (!transform.any_op) -> !transform.any_op
    transform.tiletag.verify %persistent : !transform.any_op
    transform.yield
  }
}
