//===- DescribeKernels.cpp - print a summary of each tile kernel ----------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tag/IR/TagOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::tiletag::tile {
#define GEN_PASS_DEF_DESCRIBEKERNELSPASS
#include "TileTag/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tiletag::tile

using namespace mlir;
using namespace mlir::tiletag;

namespace {

/// Counts of operations by name, in first-seen order.
using OpCounts = llvm::MapVector<StringRef, unsigned>;

void printCounts(llvm::raw_ostream &os, StringRef label,
                 const OpCounts &counts) {
  os << "  " << label << ":";
  if (counts.empty())
    os << " none";
  bool first = true;
  for (auto [name, count] : counts) {
    os << (first ? " " : ", ") << name << " x" << count;
    first = false;
  }
  os << "\n";
}

void describe(tile::KernelOp kernel, llvm::raw_ostream &os) {
  os << "kernel @" << kernel.getSymName() << ": grid rank " << kernel.getGrid();
  if (auto launch = kernel->getAttrOfType<schedule::LaunchAttr>(
          schedule::ScheduleDialect::kLaunchAttrName)) {
    os << ", " << launch.getWarpgroups() << " warpgroup(s) ("
       << launch.getWarpgroups() * 128 << " threads)";
    if (!launch.getCluster().empty()) {
      os << ", cluster ";
      llvm::interleave(launch.getCluster(), os, "x");
    }
  }
  os << "\n  operands:";
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes()))
    os << (i ? ", " : " ") << kernel.getOperandName(i) << ": " << type;
  os << "\n";

  OpCounts tileOps, tagOps, scheduleOps;
  int64_t sharedBytes = 0;
  unsigned numSharedBuffers = 0, numLoops = 0, numLabels = 0;
  llvm::MapVector<StringRef, unsigned> loopLevels;
  SmallVector<std::string> roles;
  kernel.walk([&](Operation *op) {
    Dialect *dialect = op->getDialect();
    OpCounts *counts =
        llvm::isa_and_nonnull<tile::TileDialect>(dialect) ? &tileOps
        : llvm::isa_and_nonnull<tag::TagDialect>(dialect) ? &tagOps
        : llvm::isa_and_nonnull<schedule::ScheduleDialect>(dialect)
            ? &scheduleOps
            : nullptr;
    // Kernel structure is not counted.
    if (counts &&
        !llvm::isa<tile::KernelOp, tile::ReturnOp, schedule::YieldOp>(op))
      ++(*counts)[op->getName().stripDialect()];
    if (op->hasAttr(tag::TagDialect::kLabelsAttrName))
      ++numLabels;
    if (auto alloc = llvm::dyn_cast<tile::AllocSharedOp>(op)) {
      MemRefType type = alloc.getType();
      ++numSharedBuffers;
      sharedBytes +=
          type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
    }
    if (llvm::isa<LoopLikeOpInterface>(op)) {
      ++numLoops;
      auto map = op->getAttrOfType<schedule::ParallelLevelAttr>(
          schedule::ScheduleDialect::kMapAttrName);
      ++loopLevels[map ? schedule::stringifyParallelLevel(map.getValue())
                       : StringRef("sequential")];
    }
    if (auto role = llvm::dyn_cast<schedule::RoleOp>(op)) {
      std::string text;
      llvm::raw_string_ostream rs(text);
      rs << role.getName() << " on warpgroup(s) ";
      llvm::interleave(role.getWarpgroups(), rs, ",");
      if (role.getRegs())
        rs << " with " << *role.getRegs() << " registers";
      roles.push_back(text);
    }
  });

  os << "  shared memory: " << numSharedBuffers << " buffer(s), " << sharedBytes
     << " bytes\n";
  os << "  loops: " << numLoops;
  for (auto [level, count] : loopLevels)
    os << ", " << count << " " << level;
  os << "\n";
  printCounts(os, "tile ops", tileOps);
  printCounts(os, "tag ops", tagOps);
  if (numLabels)
    os << "  tag labels on other ops: " << numLabels << "\n";
  printCounts(os, "schedule ops", scheduleOps);
  os << "  warp roles:";
  if (roles.empty())
    os << " none";
  for (auto [i, role] : llvm::enumerate(roles))
    os << (i ? "; " : " ") << role;
  os << "\n";
}

struct DescribeKernelsPass
    : public tile::impl::DescribeKernelsPassBase<DescribeKernelsPass> {
  void runOnOperation() override {
    unsigned count = 0;
    getOperation().walk([&](tile::KernelOp kernel) {
      describe(kernel, llvm::outs());
      ++count;
    });
    if (count == 0)
      llvm::outs() << "no tile.kernel in this module\n";
    llvm::outs().flush();
    markAllAnalysesPreserved();
  }
};

} // namespace
