// Thread-block clusters on Hopper: the cluster shape is fixed at compile
// time (.reqnctapercluster, so a plain launch runs the grid in clusters),
// recorded in the kernel's ABI for the runners, and a cluster barrier is
// barrier.cluster.arrive + wait (release and acquire at cluster scope, so
// one program's global writes before it are visible to the cluster's other
// programs after it). The kernels are the schedule suite's, proved.
// REQUIRES: ptxas
// RUN: tiletag-opt %S/../../Verification/schedule/cluster.mlir --tiletag-verify --tiletag-convert-to-nvgpu | FileCheck %s
// CHECK-LABEL: gpu.func @exchange
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK-SAME: tiletag.abi = {{{.*}}cluster = array<i64: 2, 1, 1>
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// RUN: tiletag-opt %S/../../Verification/schedule/cluster.mlir --tiletag-compile-cuda="format=isa output=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX-LABEL: .entry exchange(
// PTX: .explicitcluster
// PTX-NEXT: .reqnctapercluster 2, 1, 1
// PTX: st.global
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX: ld.global
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// The schedule suite's cluster syncs before and after an epilogue, in a loop.
// RUN: tiletag-opt %S/../../Verification/schedule/cluster-epilogue.mlir --tiletag-compile-cuda="format=isa output=%t.epilogue.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=EPILOGUE < %t.epilogue.ptx
// EPILOGUE-LABEL: .entry cluster_epilogue(
// EPILOGUE: .reqnctapercluster 2, 1, 1
// EPILOGUE: barrier.cluster.arrive.aligned;
// EPILOGUE-NEXT: barrier.cluster.wait.aligned;
// EPILOGUE: barrier.cluster.arrive.aligned;
// EPILOGUE-NEXT: barrier.cluster.wait.aligned;
// EPILOGUE-NOT: barrier.cluster
// RUN: %ptxas -arch=sm_90a -v %t.epilogue.ptx -o %t.epilogue.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
