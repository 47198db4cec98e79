//===- TileAttrs.cpp - tile dialect attributes ----------------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tiletag::tile;

#define GET_ATTRDEF_CLASSES
#include "TileTag/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "TileTag/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Affine expressions over named sizes
//===----------------------------------------------------------------------===//

/// Prints `expr` with symbol `i` written as `names[i]`, parenthesizing every
/// compound operand so that the text parses back to the same expression.
static void printSizeExpr(raw_ostream &os, AffineExpr expr,
                          ArrayRef<StringAttr> names) {
  if (auto sym = llvm::dyn_cast<AffineSymbolExpr>(expr)) {
    os << names[sym.getPosition()].getValue();
    return;
  }
  if (auto cst = llvm::dyn_cast<AffineConstantExpr>(expr)) {
    os << cst.getValue();
    return;
  }
  auto bin = llvm::cast<AffineBinaryOpExpr>(expr);
  auto operand = [&](AffineExpr e) {
    bool compound = llvm::isa<AffineBinaryOpExpr>(e);
    if (compound)
      os << "(";
    printSizeExpr(os, e, names);
    if (compound)
      os << ")";
  };
  operand(bin.getLHS());
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    os << " + ";
    break;
  case AffineExprKind::Mul:
    os << " * ";
    break;
  case AffineExprKind::FloorDiv:
    os << " floordiv ";
    break;
  case AffineExprKind::CeilDiv:
    os << " ceildiv ";
    break;
  case AffineExprKind::Mod:
    os << " mod ";
    break;
  default:
    llvm_unreachable("not a binary affine expression");
  }
  operand(bin.getRHS());
}

static int64_t evaluate(AffineExpr expr, ArrayRef<int64_t> sizes) {
  SmallVector<AffineExpr> values;
  for (int64_t v : sizes)
    values.push_back(getAffineConstantExpr(v, expr.getContext()));
  AffineExpr folded = expr.replaceDimsAndSymbols({}, values);
  return llvm::cast<AffineConstantExpr>(folded).getValue();
}

SmallVector<int64_t> LaunchAttr::evaluateGrid(ArrayRef<int64_t> sizes) const {
  SmallVector<int64_t> grid;
  for (AffineExpr e : getGrid())
    grid.push_back(evaluate(e, sizes));
  return grid;
}

std::optional<SmallVector<int64_t>>
LaunchAttr::evaluateShape(StringRef name, ArrayRef<int64_t> sizes) const {
  for (auto [n, map] : llvm::zip(getShapeNames(), getShapes())) {
    if (n.getValue() != name)
      continue;
    SmallVector<int64_t> shape;
    for (AffineExpr e : map.getResults())
      shape.push_back(evaluate(e, sizes));
    return shape;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Parsing and printing
//===----------------------------------------------------------------------===//

Attribute LaunchAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  SmallVector<StringAttr> sizeNames, shapeNames;
  SmallVector<int64_t> sizeDefaults;
  SmallVector<AffineExpr> grid;
  SmallVector<AffineMap> shapes;
  SmallVector<FlatSymbolRefAttr> then;
  StringAttr check;
  SmallVector<std::pair<StringRef, AffineExpr>> symbols;

  auto parseName = [&](StringAttr &name) -> ParseResult {
    std::string text;
    if (parser.parseKeywordOrString(&text))
      return failure();
    name = StringAttr::get(ctx, text);
    return success();
  };
  auto parseExprList = [&](SmallVectorImpl<AffineExpr> &exprs) {
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square, [&]() -> ParseResult {
          AffineExpr e;
          if (parser.parseAffineExpr(symbols, e))
            return failure();
          exprs.push_back(e);
          return success();
        });
  };

  if (parser.parseLess() || parser.parseKeyword("sizes") || parser.parseEqual())
    return {};
  if (parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            StringAttr name;
            int64_t value;
            if (parseName(name) || parser.parseEqual() ||
                parser.parseInteger(value))
              return failure();
            sizeNames.push_back(name);
            sizeDefaults.push_back(value);
            return success();
          }))
    return {};
  // Symbols live in the attribute's storage, so their names must outlive the
  // parse: take them from the uniqued StringAttrs.
  for (auto [i, name] : llvm::enumerate(sizeNames))
    symbols.push_back({name.getValue(), getAffineSymbolExpr(i, ctx)});

  if (parser.parseComma() || parser.parseKeyword("grid") ||
      parser.parseEqual() || parseExprList(grid))
    return {};
  if (parser.parseComma() || parser.parseKeyword("shapes") ||
      parser.parseEqual())
    return {};
  if (parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            StringAttr name;
            SmallVector<AffineExpr> dims;
            if (parseName(name) || parser.parseEqual() || parseExprList(dims))
              return failure();
            shapeNames.push_back(name);
            shapes.push_back(AffineMap::get(0, sizeNames.size(), dims, ctx));
            return success();
          }))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (key == "check") {
      std::string text;
      if (parser.parseString(&text))
        return {};
      check = StringAttr::get(ctx, text);
    } else if (key == "then") {
      if (parser.parseCommaSeparatedList(
              AsmParser::Delimiter::Square, [&]() -> ParseResult {
                StringAttr sym;
                if (parser.parseSymbolName(sym))
                  return failure();
                then.push_back(FlatSymbolRefAttr::get(sym));
                return success();
              }))
        return {};
    } else {
      parser.emitError(loc)
          << "unknown launch field '" << key << "'; expected 'check' or 'then'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); }, ctx,
                    sizeNames, sizeDefaults, grid, shapeNames, shapes, check,
                    then);
}

void LaunchAttr::print(AsmPrinter &printer) const {
  raw_ostream &os = printer.getStream();
  ArrayRef<StringAttr> names = getSizeNames();
  os << "<sizes = [";
  llvm::interleaveComma(
      llvm::zip(names, getSizeDefaults()), os, [&](auto pair) {
        os << std::get<0>(pair).getValue() << " = " << std::get<1>(pair);
      });
  os << "], grid = [";
  llvm::interleaveComma(getGrid(), os,
                        [&](AffineExpr e) { printSizeExpr(os, e, names); });
  os << "], shapes = [";
  llvm::interleaveComma(llvm::zip(getShapeNames(), getShapes()), os,
                        [&](auto pair) {
                          os << std::get<0>(pair).getValue() << " = [";
                          llvm::interleaveComma(std::get<1>(pair).getResults(),
                                                os, [&](AffineExpr e) {
                                                  printSizeExpr(os, e, names);
                                                });
                          os << "]";
                        });
  os << "]";
  if (getCheck())
    os << ", check = \"" << getCheck().getValue() << "\"";
  if (!getThen().empty()) {
    os << ", then = [";
    llvm::interleaveComma(getThen(), os, [&](FlatSymbolRefAttr s) { os << s; });
    os << "]";
  }
  os << ">";
}

LogicalResult LaunchAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<StringAttr> sizeNames,
                                 ArrayRef<int64_t> sizeDefaults,
                                 ArrayRef<AffineExpr> grid,
                                 ArrayRef<StringAttr> shapeNames,
                                 ArrayRef<AffineMap> shapes, StringAttr check,
                                 ArrayRef<FlatSymbolRefAttr> then) {
  llvm::StringSet<> seen;
  for (auto [name, value] : llvm::zip(sizeNames, sizeDefaults)) {
    if (!seen.insert(name.getValue()).second)
      return emitError() << "size '" << name.getValue()
                         << "' is declared twice";
    if (value < 0)
      return emitError() << "size '" << name.getValue()
                         << "' has a negative default " << value;
  }
  if (grid.empty() || grid.size() > 3)
    return emitError() << "a grid has 1 to 3 extents, got " << grid.size();
  for (AffineExpr e : grid)
    if (e.getKind() == AffineExprKind::DimId || !e.isSymbolicOrConstant())
      return emitError() << "grid extents are affine in the sizes only";
  llvm::StringSet<> operands;
  for (StringAttr name : shapeNames)
    if (!operands.insert(name.getValue()).second)
      return emitError() << "operand '" << name.getValue()
                         << "' has two shapes";
  for (AffineMap map : shapes)
    if (map.getNumDims() != 0)
      return emitError() << "operand shapes are affine in the sizes only";
  return success();
}
