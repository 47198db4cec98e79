//===- tiletag-opt.cpp - the TileTag optimizer driver ---------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/CommandServer/CommandServer.h"
#include "TileTag/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

int main(int argc, char **argv) {
#ifdef __GLIBC__
  // The verifier builds and frees a Z3 context per query (tens of MB).
  // glibc would hand those pages back to the kernel and fault them in again
  // every time: half of verifying a pipelined GEMM. Kept in the heap, they
  // are reused.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
  mlir::DialectRegistry registry;
  mlir::tiletag::registerAllDialects(registry);
  mlir::tiletag::registerAllPasses();
  std::string description =
      std::string("TileTag optimizer: tile kernels with proven-safe GPU "
                  "schedules\n\n") +
      mlir::tiletag::kServeHelp;
  auto run = [&](int argc, char **argv) {
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, description, registry));
  };
  if (argc == 2 && llvm::StringRef(argv[1]) == mlir::tiletag::kServeFlag)
    return mlir::tiletag::serveCommandLines("tiletag-opt", run);
  return run(argc, argv);
}
