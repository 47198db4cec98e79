//===- WriteGPUBinary.cpp - write the objects of gpu.binary ops -----------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tiletag::conversion {
#define GEN_PASS_DEF_WRITEGPUBINARYPASS
#include "TileTag/Conversion/Passes.h.inc"
} // namespace mlir::tiletag::conversion

using namespace mlir;
using namespace mlir::tiletag;

namespace {
struct WriteGPUBinaryPass
    : public conversion::impl::WriteGPUBinaryPassBase<WriteGPUBinaryPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<gpu::BinaryOp> binaries(getOperation().getOps<gpu::BinaryOp>());
    if (binaries.empty()) {
      getOperation().emitError()
          << "no gpu.binary to write; run gpu-module-to-binary first";
      return signalPassFailure();
    }
    for (gpu::BinaryOp binary : binaries) {
      std::string file = path;
      if (binaries.size() > 1) {
        StringRef ext = llvm::sys::path::extension(path);
        file = (StringRef(path).drop_back(ext.size()) + "." +
                binary.getSymName() + ext)
                   .str();
      }
      auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
      std::error_code ec;
      llvm::raw_fd_ostream os(file, ec, llvm::sys::fs::OF_None);
      if (ec) {
        binary.emitError() << "cannot write '" << file << "': " << ec.message();
        return signalPassFailure();
      }
      os << object.getObject().getValue();
    }
  }
};
} // namespace

