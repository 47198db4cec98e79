//===- ScheduleDialect.cpp - The schedule dialect -------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Schedule/IR/ScheduleDialect.h"
#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tiletag::schedule;

#include "TileTag/Dialect/Schedule/IR/ScheduleDialect.cpp.inc"
#include "TileTag/Dialect/Schedule/IR/ScheduleEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "TileTag/Dialect/Schedule/IR/ScheduleAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "TileTag/Dialect/Schedule/IR/ScheduleTypes.cpp.inc"

void ScheduleDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "TileTag/Dialect/Schedule/IR/ScheduleAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "TileTag/Dialect/Schedule/IR/ScheduleTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "TileTag/Dialect/Schedule/IR/ScheduleOps.cpp.inc"
      >();
}

Attribute LaunchAttr::parse(AsmParser &parser, Type) {
  int64_t warpgroups = 0, occupancy = 0;
  SmallVector<int64_t> cluster;
  if (parser.parseLess() || parser.parseKeyword("warpgroups") ||
      parser.parseEqual() || parser.parseInteger(warpgroups))
    return {};
  bool seenCluster = false, seenOccupancy = false;
  while (succeeded(parser.parseOptionalComma())) {
    if (!seenCluster && !seenOccupancy &&
        succeeded(parser.parseOptionalKeyword("cluster"))) {
      seenCluster = true;
      if (parser.parseEqual() ||
          parser.parseCommaSeparatedList(
              AsmParser::Delimiter::Square, [&]() -> ParseResult {
                return parser.parseInteger(cluster.emplace_back());
              }))
        return {};
      continue;
    }
    if (seenOccupancy || parser.parseKeyword("occupancy", seenCluster
                                                ? " after the cluster"
                                                : " or 'cluster'") ||
        parser.parseEqual() || parser.parseInteger(occupancy))
      return {};
    if (occupancy < 1) {
      parser.emitError(parser.getCurrentLocation(),
                       "occupancy must be 1 to 32 programs per SM, got ")
          << occupancy;
      return {};
    }
    seenOccupancy = true;
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<LaunchAttr>(parser.getContext(), warpgroups,
                                       cluster, occupancy);
}

void LaunchAttr::print(AsmPrinter &printer) const {
  printer << "<warpgroups = " << getWarpgroups();
  if (!getCluster().empty()) {
    printer << ", cluster = [";
    llvm::interleaveComma(getCluster(), printer);
    printer << "]";
  }
  if (getOccupancy())
    printer << ", occupancy = " << getOccupancy();
  printer << ">";
}

LogicalResult LaunchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t warpgroups,
                                 ArrayRef<int64_t> cluster,
                                 int64_t occupancy) {
  if (occupancy < 0 || occupancy > 32)
    return emitError() << "occupancy must be 1 to 32 programs per SM, got "
                       << occupancy;
  if (warpgroups < 1 || warpgroups > 8)
    return emitError()
           << "warpgroups must be 1 to 8 (128 to 1024 threads), got "
           << warpgroups;
  if (cluster.size() > 3)
    return emitError() << "a cluster has 1 to 3 dimensions, got "
                       << cluster.size();
  int64_t product = 1;
  for (int64_t c : cluster) {
    if (c < 1)
      return emitError() << "cluster sizes must be positive";
    product *= c;
  }
  if (product > 16)
    return emitError() << "a cluster holds at most 16 programs, got "
                       << product;
  return success();
}

LogicalResult MBarrierType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t size) {
  if (size < 1)
    return emitError() << "an mbarrier array needs at least one barrier, got "
                       << size;
  return success();
}

LogicalResult ScheduleDialect::verifyOperationAttribute(Operation *op,
                                                        NamedAttribute attr) {
  if (attr.getName() == kMapAttrName) {
    if (!llvm::isa<ParallelLevelAttr>(attr.getValue()))
      return op->emitError() << "'" << kMapAttrName
                             << "' must be a #schedule.map<...> attribute";
    if (!llvm::isa<LoopLikeOpInterface>(op))
      return op->emitError() << "'" << kMapAttrName
                             << "' maps loop iterations, so it belongs on a "
                                "loop (scf.for, scf.forall, ...), not on '"
                             << op->getName() << "'";
    return success();
  }
  if (attr.getName() == kLaunchAttrName) {
    if (!llvm::isa<LaunchAttr>(attr.getValue()))
      return op->emitError() << "'" << kLaunchAttrName
                             << "' must be a #schedule.launch<...> attribute";
    if (!llvm::isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << kLaunchAttrName
                             << "' belongs on a kernel (tile.kernel or another "
                                "function-like op), not on '"
                             << op->getName() << "'";
    return success();
  }
  if (attr.getName() == kVerifiedAttrName) {
    // Set by the checker: the hash of the kernel it proved.
    if (!llvm::isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << kVerifiedAttrName
                             << "' is a proof stamp: the hash string of the "
                                "kernel the checker proved";
    return success();
  }
  return op->emitError() << "unknown schedule dialect attribute '"
                         << attr.getName().getValue() << "'; the schedule "
                         << "dialect defines '" << kMapAttrName << "', '"
                         << kLaunchAttrName << "' and '" << kVerifiedAttrName
                         << "'";
}
