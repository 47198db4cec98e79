//===- Interpreter.cpp - the sequential meaning of tile kernels -----------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Execution/Interpreter.h"
#include "TileTag/Execution/IntegerArith.h"

#include "TileTag/Dialect/Schedule/IR/ScheduleOps.h"
#include "TileTag/Dialect/Tag/IR/TagOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::exec;

//===----------------------------------------------------------------------===//
// Element rounding and arrays
//===----------------------------------------------------------------------===//

static double roundToBF16(double value) {
  float f = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu))
    return value;                        // NaN stays NaN
  bits += 0x7fffu + ((bits >> 16) & 1u); // round to nearest, ties to even
  bits &= 0xffff0000u;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

static double roundToSemantics(const llvm::fltSemantics &sem, double value) {
  bool lost;
  llvm::APFloat f(value);
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}

double mlir::tiletag::exec::roundTo(Type type, double value) {
  if (type.isF32())
    return static_cast<float>(value);
  if (type.isF64())
    return value;
  if (type.isBF16())
    return roundToBF16(value);
  if (auto ft = llvm::dyn_cast<FloatType>(type))
    return roundToSemantics(ft.getFloatSemantics(), value);
  if (auto it = llvm::dyn_cast<IntegerType>(type)) {
    unsigned width = it.getWidth();
    if (width >= 64)
      return value;
    auto bits = static_cast<uint64_t>(static_cast<int64_t>(value));
    bits &= (uint64_t{1} << width) - 1;
    if (width == 1)
      return static_cast<double>(bits);
    int64_t signedValue =
        static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
    return static_cast<double>(signedValue);
  }
  if (type.isIndex())
    return std::trunc(value);
  return value;
}

Array::Array(Type elementType, ArrayRef<int64_t> shape, double fill)
    : elementType(elementType), shape(shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  data.assign(n, fill);
}

int64_t Array::linear(ArrayRef<int64_t> index) const {
  int64_t pos = 0;
  for (auto [i, d] : llvm::zip(index, shape))
    pos = pos * d + i;
  return pos;
}

/// Visits every multi-index of `shape` in row-major order.
template <typename Fn>
static void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  for (int64_t d : shape)
    if (d <= 0)
      return;
  SmallVector<int64_t> index(shape.size(), 0);
  while (true) {
    fn(ArrayRef<int64_t>(index));
    int64_t d = static_cast<int64_t>(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

namespace {

class Interpreter {
public:
  Interpreter(ArrayRef<int64_t> programId, ArrayRef<int64_t> grid)
      : programId(programId), grid(grid) {}

  /// Where the program waits at a cluster barrier (ClusterRun); unset, the
  /// program runs alone and a cluster barrier has nothing to wait for.
  std::function<LogicalResult(Operation *)> clusterBarrier;

  /// Runs `block` with `args` (consumed) bound to its arguments; the
  /// terminator's operands go to `results`.
  LogicalResult runBlock(Block &block, MutableArrayRef<RuntimeValue> args,
                         SmallVectorImpl<RuntimeValue> *results);

private:
  LogicalResult run(Operation &op);
  LogicalResult fail(Operation *op, const Twine &message);

  const Array &array(Value v) { return std::get<Array>(env[v]); }
  double scalar(Value v) { return array(v).data.front(); }
  /// The exact value of an integer or index scalar.
  llvm::APInt integer(Value v) {
    const Array &a = array(v);
    if (a.exact)
      return *a.exact;
    return exactOf(a.elementType, a.data.front());
  }
  int64_t index(Value v) { return integer(v).getSExtValue(); }
  Buffer buffer(Value v) { return std::get<Buffer>(env[v]); }
  SmallVector<int64_t> indices(ValueRange values) {
    SmallVector<int64_t> out;
    for (Value v : values)
      out.push_back(index(v));
    return out;
  }
  void set(Value v, Array a) { env[v] = std::move(a); }
  void setScalar(Value v, double x) {
    Type type = getElementTypeOrSelf(v.getType());
    if (!llvm::isa<ShapedType>(v.getType()) && integerWidth(type))
      return setInteger(v, exactOf(type, x));
    set(v, Array(type, {}, roundTo(type, x)));
  }
  void setInteger(Value v, const llvm::APInt &x) { set(v, scalarOf(x, v.getType())); }

  static llvm::APInt exactOf(Type type, double x) {
    unsigned width = integerWidth(type);
    if (width == 1)
      return llvm::APInt(1, x != 0);
    return llvm::APInt(64, static_cast<int64_t>(x), /*isSigned=*/true)
        .sextOrTrunc(width);
  }
  static Array scalarOf(const llvm::APInt &x, Type type) {
    bool isBool = x.getBitWidth() == 1;
    Array a(type, {},
            static_cast<double>(isBool ? x.getZExtValue() : x.getSExtValue()));
    a.exact = x;
    return a;
  }

  template <typename Fn> LogicalResult unary(Operation *op, Fn fn);
  template <typename Fn> LogicalResult binary(Operation *op, Fn fn);
  LogicalResult runArith(Operation &op, bool &handled);
  LogicalResult blockAccess(Operation *op, Array &tile, const Buffer &memory,
                            ArrayRef<int64_t> indices, ValueRange offsets,
                            ValueRange bounds, bool isLoad,
                            std::optional<double> padding, bool add);
  LogicalResult slotAccess(Operation *op, Array &tile, const Buffer &memory,
                           ArrayRef<int64_t> slots, bool isRead);

  ArrayRef<int64_t> programId, grid;
  DenseMap<Value, RuntimeValue> env;
};

} // namespace

LogicalResult Interpreter::fail(Operation *op, const Twine &message) {
  InFlightDiagnostic diag = op->emitError(message);
  std::string pid;
  llvm::raw_string_ostream os(pid);
  llvm::interleaveComma(programId, os);
  diag.attachNote() << "in program (" << pid << ") of the sequential run";
  return failure();
}

LogicalResult Interpreter::runBlock(Block &block,
                                    MutableArrayRef<RuntimeValue> args,
                                    SmallVectorImpl<RuntimeValue> *results) {
  for (auto [arg, value] : llvm::zip(block.getArguments(), args))
    env[arg] = std::move(value);
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (results)
        for (Value v : op.getOperands()) {
          // Values of this block die with it: hand them over, don't copy.
          // (An operand may appear twice; only its last use may move.)
          bool local = v.getParentBlock() == &block &&
                       llvm::count(op.getOperands(), v) == 1;
          results->push_back(local ? std::move(env[v]) : env[v]);
        }
      return success();
    }
    if (failed(run(op)))
      return failure();
  }
  return success();
}

template <typename Fn> LogicalResult Interpreter::unary(Operation *op, Fn fn) {
  const Array &in = array(op->getOperand(0));
  Type elem = getElementTypeOrSelf(op->getResult(0).getType());
  Array out(elem, in.shape);
  for (int64_t i = 0, e = in.size(); i < e; ++i)
    out.data[i] = roundTo(elem, fn(in.data[i]));
  set(op->getResult(0), std::move(out));
  return success();
}

template <typename Fn> LogicalResult Interpreter::binary(Operation *op, Fn fn) {
  const Array &a = array(op->getOperand(0));
  const Array &b = array(op->getOperand(1));
  Type elem = getElementTypeOrSelf(op->getResult(0).getType());
  Array out(elem, a.shape);
  for (int64_t i = 0, e = a.size(); i < e; ++i)
    out.data[i] = roundTo(elem, fn(a.data[i], b.data[i]));
  set(op->getResult(0), std::move(out));
  return success();
}

static uint64_t u(double x) {
  return static_cast<uint64_t>(static_cast<int64_t>(x));
}
static int64_t s(double x) { return static_cast<int64_t>(x); }

/// Reads an integer operand as unsigned at its bit width.
static uint64_t unsignedAt(Type type, double x) {
  uint64_t bits = u(x);
  if (auto it = llvm::dyn_cast<IntegerType>(type))
    if (it.getWidth() < 64)
      bits &= (uint64_t{1} << it.getWidth()) - 1;
  return bits;
}

LogicalResult Interpreter::runArith(Operation &op, bool &handled) {
  handled = true;
  if (std::optional<IntegerOp> integerOp = decodeIntegerOp(&op)) {
    SmallVector<llvm::APInt> operands;
    for (Value v : op.getOperands())
      operands.push_back(integer(v));
    std::string undefined;
    FailureOr<llvm::APInt> r =
        evaluateIntegerOp(*integerOp, operands, undefined);
    if (failed(r))
      return fail(&op, "undefined behaviour: " + undefined);
    setInteger(op.getResult(0), *r);
    return success();
  }
  Type inElem = op.getNumOperands()
                    ? getElementTypeOrSelf(op.getOperand(0).getType())
                    : Type();
  auto ud = [&](double a) { return unsignedAt(inElem, a); };
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp c) -> LogicalResult {
        Type type = c.getType();
        Type elem = getElementTypeOrSelf(type);
        auto toDouble = [](Attribute a) -> double {
          if (auto f = llvm::dyn_cast<FloatAttr>(a))
            return f.getValueAsDouble();
          if (auto i = llvm::dyn_cast<IntegerAttr>(a))
            return i.getType().isInteger(1)
                       ? static_cast<double>(i.getValue().getZExtValue())
                       : static_cast<double>(i.getValue().getSExtValue());
          return 0.0;
        };
        if (auto dense = llvm::dyn_cast<DenseElementsAttr>(c.getValue())) {
          auto shaped = llvm::cast<ShapedType>(type);
          Array out(elem, shaped.getShape());
          if (dense.isSplat()) {
            double v =
                roundTo(elem, toDouble(dense.getSplatValue<Attribute>()));
            std::fill(out.data.begin(), out.data.end(), v);
          } else {
            int64_t i = 0;
            for (Attribute a : dense.getValues<Attribute>())
              out.data[i++] = roundTo(elem, toDouble(a));
          }
          set(c, std::move(out));
          return success();
        }
        if (auto i = llvm::dyn_cast<IntegerAttr>(c.getValue())) {
          setInteger(c, i.getValue());
          return success();
        }
        setScalar(c, toDouble(c.getValue()));
        return success();
      })
      .Case<arith::AddFOp, arith::AddIOp>([&](Operation *o) {
        return binary(o, [](double a, double b) { return a + b; });
      })
      .Case<arith::SubFOp, arith::SubIOp>([&](Operation *o) {
        return binary(o, [](double a, double b) { return a - b; });
      })
      .Case<arith::MulFOp>([&](Operation *o) {
        return binary(o, [](double a, double b) { return a * b; });
      })
      .Case<arith::MulIOp>([&](Operation *o) {
        return binary(o, [](double a, double b) {
          return static_cast<double>(u(a) * u(b));
        });
      })
      .Case<arith::DivFOp>([&](Operation *o) {
        return binary(o, [](double a, double b) { return a / b; });
      })
      .Case<arith::MaximumFOp>([&](Operation *o) {
        return binary(o, [](double a, double b) {
          return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
        });
      })
      .Case<arith::MinimumFOp>([&](Operation *o) {
        return binary(o, [](double a, double b) {
          return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
        });
      })
      .Case<arith::MaxNumFOp>([&](Operation *o) {
        return binary(o, [](double a, double b) { return std::fmax(a, b); });
      })
      .Case<arith::MinNumFOp>([&](Operation *o) {
        return binary(o, [](double a, double b) { return std::fmin(a, b); });
      })
      .Case<arith::MaxSIOp>([&](Operation *o) {
        return binary(o, [](double a, double b) { return std::max(a, b); });
      })
      .Case<arith::MinSIOp>([&](Operation *o) {
        return binary(o, [](double a, double b) { return std::min(a, b); });
      })
      .Case<arith::MaxUIOp>([&](Operation *o) {
        return binary(o, [&](double a, double b) {
          return static_cast<double>(std::max(ud(a), ud(b)));
        });
      })
      .Case<arith::MinUIOp>([&](Operation *o) {
        return binary(o, [&](double a, double b) {
          return static_cast<double>(std::min(ud(a), ud(b)));
        });
      })
      .Case<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp, arith::DivSIOp,
            arith::RemSIOp, arith::FloorDivSIOp, arith::CeilDivSIOp>(
          [&](Operation *o) -> LogicalResult {
            const Array &b = array(o->getOperand(1));
            for (double x : b.data)
              if (x == 0)
                return fail(o, "integer division by zero");
            return binary(o, [&](double a, double b) -> double {
              if (isa<arith::DivUIOp>(o))
                return static_cast<double>(ud(a) / ud(b));
              if (isa<arith::RemUIOp>(o))
                return static_cast<double>(ud(a) % ud(b));
              if (isa<arith::CeilDivUIOp>(o))
                return static_cast<double>((ud(a) + ud(b) - 1) / ud(b));
              if (isa<arith::DivSIOp>(o))
                return static_cast<double>(s(a) / s(b));
              if (isa<arith::RemSIOp>(o))
                return static_cast<double>(s(a) % s(b));
              double q = std::floor(a / b);
              if (isa<arith::FloorDivSIOp>(o))
                return q;
              return std::ceil(a / b);
            });
          })
      .Case<arith::AndIOp>([&](Operation *o) {
        return binary(o, [](double a, double b) {
          return static_cast<double>(s(a) & s(b));
        });
      })
      .Case<arith::OrIOp>([&](Operation *o) {
        return binary(o, [](double a, double b) {
          return static_cast<double>(s(a) | s(b));
        });
      })
      .Case<arith::XOrIOp>([&](Operation *o) {
        return binary(o, [](double a, double b) {
          return static_cast<double>(s(a) ^ s(b));
        });
      })
      .Case<arith::ShLIOp>([&](Operation *o) {
        return binary(o, [](double a, double b) {
          return static_cast<double>(u(a) << (u(b) & 63));
        });
      })
      .Case<arith::ShRUIOp>([&](Operation *o) {
        return binary(o, [&](double a, double b) {
          return static_cast<double>(ud(a) >> (u(b) & 63));
        });
      })
      .Case<arith::ShRSIOp>([&](Operation *o) {
        return binary(o, [](double a, double b) {
          return static_cast<double>(s(a) >> (u(b) & 63));
        });
      })
      .Case<arith::NegFOp>(
          [&](Operation *o) { return unary(o, [](double a) { return -a; }); })
      .Case<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::ExtSIOp,
            arith::TruncIOp, arith::IndexCastOp, arith::BitcastOp>(
          [&](Operation *o) { return unary(o, [](double a) { return a; }); })
      .Case<arith::UIToFPOp, arith::ExtUIOp, arith::IndexCastUIOp>(
          [&](Operation *o) {
            return unary(o,
                         [&](double a) { return static_cast<double>(ud(a)); });
          })
      .Case<arith::FPToSIOp>([&](Operation *o) {
        return unary(o, [](double a) { return std::trunc(a); });
      })
      .Case<arith::CmpIOp>([&](arith::CmpIOp c) {
        arith::CmpIPredicate p = c.getPredicate();
        return binary(c, [&](double a, double b) -> double {
          switch (p) {
          case arith::CmpIPredicate::eq:
            return a == b;
          case arith::CmpIPredicate::ne:
            return a != b;
          case arith::CmpIPredicate::slt:
            return s(a) < s(b);
          case arith::CmpIPredicate::sle:
            return s(a) <= s(b);
          case arith::CmpIPredicate::sgt:
            return s(a) > s(b);
          case arith::CmpIPredicate::sge:
            return s(a) >= s(b);
          case arith::CmpIPredicate::ult:
            return ud(a) < ud(b);
          case arith::CmpIPredicate::ule:
            return ud(a) <= ud(b);
          case arith::CmpIPredicate::ugt:
            return ud(a) > ud(b);
          case arith::CmpIPredicate::uge:
            return ud(a) >= ud(b);
          }
          return 0;
        });
      })
      .Case<arith::CmpFOp>([&](arith::CmpFOp c) {
        arith::CmpFPredicate p = c.getPredicate();
        return binary(c, [&](double a, double b) -> double {
          bool unordered = std::isnan(a) || std::isnan(b);
          switch (p) {
          case arith::CmpFPredicate::AlwaysFalse:
            return 0;
          case arith::CmpFPredicate::OEQ:
            return !unordered && a == b;
          case arith::CmpFPredicate::OGT:
            return !unordered && a > b;
          case arith::CmpFPredicate::OGE:
            return !unordered && a >= b;
          case arith::CmpFPredicate::OLT:
            return !unordered && a < b;
          case arith::CmpFPredicate::OLE:
            return !unordered && a <= b;
          case arith::CmpFPredicate::ONE:
            return !unordered && a != b;
          case arith::CmpFPredicate::ORD:
            return !unordered;
          case arith::CmpFPredicate::UEQ:
            return unordered || a == b;
          case arith::CmpFPredicate::UGT:
            return unordered || a > b;
          case arith::CmpFPredicate::UGE:
            return unordered || a >= b;
          case arith::CmpFPredicate::ULT:
            return unordered || a < b;
          case arith::CmpFPredicate::ULE:
            return unordered || a <= b;
          case arith::CmpFPredicate::UNE:
            return unordered || a != b;
          case arith::CmpFPredicate::UNO:
            return unordered;
          case arith::CmpFPredicate::AlwaysTrue:
            return 1;
          }
          return 0;
        });
      })
      .Case<arith::SelectOp>([&](arith::SelectOp sel) -> LogicalResult {
        const Array &cond = array(sel.getCondition());
        const Array &t = array(sel.getTrueValue());
        const Array &f = array(sel.getFalseValue());
        Array out = t;
        for (int64_t i = 0, e = out.size(); i < e; ++i) {
          double c = cond.size() == 1 ? cond.data[0] : cond.data[i];
          if (c == 0)
            out.data[i] = f.data[i];
        }
        set(sel, std::move(out));
        return success();
      })
      .Case<math::ExpOp>([&](Operation *o) {
        return unary(o, [](double a) { return std::exp(a); });
      })
      .Case<math::Exp2Op>([&](Operation *o) {
        return unary(o, [](double a) { return std::exp2(a); });
      })
      .Case<math::LogOp>([&](Operation *o) {
        return unary(o, [](double a) { return std::log(a); });
      })
      .Case<math::SqrtOp>([&](Operation *o) {
        return unary(o, [](double a) { return std::sqrt(a); });
      })
      .Case<math::RsqrtOp>([&](Operation *o) {
        return unary(o, [](double a) { return 1.0 / std::sqrt(a); });
      })
      .Case<math::TanhOp>([&](Operation *o) {
        return unary(o, [](double a) { return std::tanh(a); });
      })
      .Case<math::AbsFOp>([&](Operation *o) {
        return unary(o, [](double a) { return std::fabs(a); });
      })
      .Default([&](Operation *) {
        handled = false;
        return success();
      });
}

/// Accesses the block of a global memref that a tile covers (see the tile
/// dialect's addressing rules): loads fill `tile`, stores read it.
LogicalResult
Interpreter::blockAccess(Operation *op, Array &tile, const Buffer &memory,
                         ArrayRef<int64_t> blockIndex, ValueRange offsetValues,
                         ValueRange boundValues, bool isLoad,
                         std::optional<double> padding, bool add) {
  int64_t rank = memory->rank();
  SmallVector<int64_t> block = tile::blockShape(tile.shape, rank);
  SmallVector<int64_t> offsets(rank, 0), bounds(memory->shape);
  if (!offsetValues.empty())
    offsets = indices(offsetValues);
  if (!boundValues.empty())
    bounds = indices(boundValues);
  SmallVector<int64_t> origin(rank), position(rank);
  for (int64_t d = 0; d < rank; ++d)
    origin[d] = offsets[d] + blockIndex[d] * block[d];
  int64_t lead = rank - tile.rank();
  auto describe = [&](int64_t last) {
    std::string pos;
    llvm::raw_string_ostream os(pos);
    position[rank - 1] = last;
    llvm::interleaveComma(position, os);
    return pos;
  };

  // Walk the tile row by row (all but the last dimension), so that the range
  // checks and the address of the memory row are computed once per row.
  int64_t width = tile.shape.back();
  SmallVector<int64_t> rowShape(tile.shape.begin(), tile.shape.end() - 1);
  int64_t last = rank - 1;
  // The columns of a row that are in range, and those also in memory.
  int64_t colBegin = std::max<int64_t>(0, -origin[last]);
  int64_t colEnd = std::min<int64_t>(width, bounds[last] - origin[last]);
  int64_t memEnd = std::min<int64_t>(width, memory->shape[last] - origin[last]);
  int64_t flatRow = 0;
  LogicalResult result = success();
  forEachIndex(rowShape, [&](ArrayRef<int64_t> t) {
    if (failed(result))
      return;
    bool rowInRange = true, rowInMemory = true;
    for (int64_t d = 0; d < last; ++d) {
      position[d] = origin[d] + (d < lead ? 0 : t[d - lead]);
      rowInRange &= position[d] >= 0 && position[d] < bounds[d];
      rowInMemory &= position[d] >= 0 && position[d] < memory->shape[d];
    }
    double *row = tile.data.data() + flatRow;
    flatRow += width;
    int64_t begin = rowInRange ? colBegin : width;
    int64_t end = rowInRange ? std::max(colEnd, begin) : width;
    if (begin < end && (!rowInMemory || memEnd < end)) {
      result =
          fail(op, "bounds allow element [" +
                       describe(origin[last] + (rowInMemory ? memEnd : begin)) +
                       "], which lies outside the memref");
      return;
    }
    if (isLoad) {
      bool ragged = begin > 0 || end < width;
      if (ragged && !padding) {
        result = fail(op, "unchecked load (no padding) reads element [" +
                              describe(origin[last] + (begin > 0 ? 0 : end)) +
                              "], which is out of range");
        return;
      }
      if (ragged)
        std::fill(row, row + width, *padding);
    }
    if (begin >= end)
      return;
    position[last] = origin[last] + begin;
    double *cell = memory->data.data() + memory->linear(position);
    if (isLoad) {
      std::copy(cell, cell + (end - begin), row + begin);
    } else if (add) {
      for (int64_t j = begin; j < end; ++j, ++cell)
        *cell = roundTo(memory->elementType, *cell + row[j]);
    } else {
      for (int64_t j = begin; j < end; ++j, ++cell)
        *cell = roundTo(memory->elementType, row[j]);
    }
  });
  return result;
}

LogicalResult Interpreter::slotAccess(Operation *op, Array &tile,
                                      const Buffer &memory,
                                      ArrayRef<int64_t> slots, bool isRead) {
  SmallVector<int64_t> start(memory->rank(), 0);
  for (auto [d, s] : llvm::enumerate(slots)) {
    if (s < 0 || s >= memory->shape[d])
      return fail(
          op, "slot index " + Twine(s) + " is out of range for a buffer with " +
                  Twine(memory->shape[d]) + " slots in dimension " + Twine(d));
    start[d] = s;
  }
  int64_t base = memory->linear(start);
  if (isRead)
    std::copy_n(memory->data.begin() + base, tile.size(), tile.data.begin());
  else
    std::copy_n(tile.data.begin(), tile.size(), memory->data.begin() + base);
  return success();
}

static std::optional<double> paddingValue(Attribute padding) {
  if (auto f = llvm::dyn_cast_if_present<FloatAttr>(padding))
    return f.getValueAsDouble();
  if (auto i = llvm::dyn_cast_if_present<IntegerAttr>(padding))
    return static_cast<double>(i.getValue().getSExtValue());
  return std::nullopt;
}

LogicalResult Interpreter::run(Operation &op) {
  bool handled = false;
  if (failed(runArith(op, handled)))
    return failure();
  if (handled)
    return success();

  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      // Tile structure.
      .Case<tile::ProgramIdOp>([&](tile::ProgramIdOp p) {
        setScalar(p, programId[p.getDimAttr().getInt()]);
        return success();
      })
      .Case<tile::NumProgramsOp>([&](tile::NumProgramsOp p) {
        setScalar(p, grid[p.getDimAttr().getInt()]);
        return success();
      })
      .Case<schedule::BarrierOp>([&](schedule::BarrierOp barrier) {
        if (barrier.getScope() == schedule::BarrierScope::cluster &&
            clusterBarrier)
          return clusterBarrier(barrier);
        return success(); // a program's own code runs in order
      })
      // Memory.
      .Case<tile::LoadOp>([&](tile::LoadOp load) {
        Array tile(load.getType().getElementType(), load.getType().getShape());
        if (failed(blockAccess(load, tile, buffer(load.getSource()),
                               indices(load.getIndices()), load.getOffsets(),
                               load.getBounds(), /*isLoad=*/true,
                               paddingValue(load.getPaddingAttr()), false)))
          return failure();
        set(load, std::move(tile));
        return success();
      })
      .Case<tile::StoreOp>([&](tile::StoreOp store) {
        Array tile = array(store.getValue());
        return blockAccess(store, tile, buffer(store.getDest()),
                           indices(store.getIndices()), store.getOffsets(),
                           store.getBounds(), /*isLoad=*/false, std::nullopt,
                           store.getCombine() == tile::StoreCombine::Add);
      })
      .Case<tile::AllocSharedOp>([&](tile::AllocSharedOp alloc) {
        // Fresh shared memory holds garbage; NaN makes reads of unwritten
        // slots visible in the results.
        env[alloc] = std::make_shared<Array>(alloc.getType().getElementType(),
                                             alloc.getType().getShape(), NAN);
        return success();
      })
      .Case<tile::CopyOp>([&](tile::CopyOp copy) {
        bool toShared = copy.isGlobalToShared();
        Buffer shared = buffer(copy.getShared());
        Buffer global = buffer(copy.getGlobal());
        ValueRange slotIdx = copy.getSlotIndices();
        ValueRange blockIdx = copy.getBlockIndices();
        Array tile(shared->elementType, copy.getTileShape());
        if (toShared) {
          if (failed(blockAccess(copy, tile, global, indices(blockIdx),
                                 copy.getOffsets(), copy.getBounds(), true,
                                 paddingValue(copy.getPaddingAttr()), false)))
            return failure();
          return slotAccess(copy, tile, shared, indices(slotIdx), false);
        }
        if (failed(slotAccess(copy, tile, shared, indices(slotIdx), true)))
          return failure();
        return blockAccess(copy, tile, global, indices(blockIdx),
                           copy.getOffsets(), copy.getBounds(), false,
                           std::nullopt, false);
      })
      .Case<tile::ReadOp>([&](tile::ReadOp read) {
        Array tile(read.getType().getElementType(), read.getType().getShape());
        if (failed(slotAccess(read, tile, buffer(read.getBuffer()),
                              indices(read.getIndices()), true)))
          return failure();
        set(read, std::move(tile));
        return success();
      })
      .Case<tile::WriteOp>([&](tile::WriteOp write) {
        Array tile = array(write.getValue());
        return slotAccess(write, tile, buffer(write.getBuffer()),
                          indices(write.getIndices()), false);
      })
      // Computation.
      .Case<tile::DotOp>([&](tile::DotOp dot) {
        const Array &a = array(dot.getLhs()), &b = array(dot.getRhs()),
                    &acc = array(dot.getAcc());
        Array out(acc.elementType, acc.shape);
        int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
        // f32 products and sums, k in ascending order, as the IR states.
        std::vector<float> fa(a.data.begin(), a.data.end());
        std::vector<float> fb(b.data.begin(), b.data.end());
        std::vector<float> row(n);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j)
            row[j] = static_cast<float>(acc.data[i * n + j]);
          for (int64_t kk = 0; kk < k; ++kk) {
            float av = fa[i * k + kk];
            const float *brow = &fb[kk * n];
            for (int64_t j = 0; j < n; ++j)
              row[j] += av * brow[j];
          }
          for (int64_t j = 0; j < n; ++j)
            out.data[i * n + j] = row[j];
        }
        set(dot, std::move(out));
        return success();
      })
      .Case<tile::ReduceOp>([&](tile::ReduceOp reduce) {
        const Array &in = array(reduce.getInput());
        int64_t axis = reduce.getAxisAttr().getInt();
        Type elem = in.elementType;
        Array out(elem, reduce.getType().getShape());
        tile::ReduceKind kind = reduce.getKind();
        double init = kind == tile::ReduceKind::Sum   ? 0.0
                      : kind == tile::ReduceKind::Max ? -INFINITY
                                                      : INFINITY;
        std::fill(out.data.begin(), out.data.end(), init);
        SmallVector<int64_t> outIndex;
        int64_t flat = 0;
        forEachIndex(in.shape, [&](ArrayRef<int64_t> idx) {
          outIndex.assign(idx.begin(), idx.end());
          outIndex.erase(outIndex.begin() + axis);
          double &acc = out.data[out.linear(outIndex)];
          double v = in.data[flat++];
          if (kind == tile::ReduceKind::Sum)
            acc = roundTo(elem, acc + v);
          else if (std::isnan(v) || std::isnan(acc))
            acc = NAN;
          else
            acc = kind == tile::ReduceKind::Max ? std::max(acc, v)
                                                : std::min(acc, v);
        });
        set(reduce, std::move(out));
        return success();
      })
      .Case<tile::BroadcastOp>([&](tile::BroadcastOp bcast) {
        const Array &in = array(bcast.getInput());
        ArrayRef<int64_t> newDims = bcast.getDims();
        Array out(in.elementType, bcast.getType().getShape());
        SmallVector<int64_t> inIndex;
        int64_t flat = 0;
        forEachIndex(out.shape, [&](ArrayRef<int64_t> idx) {
          inIndex.clear();
          for (auto [d, i] : llvm::enumerate(idx))
            if (!llvm::is_contained(newDims, static_cast<int64_t>(d)))
              inIndex.push_back(i);
          out.data[flat++] = in.data[in.linear(inIndex)];
        });
        set(bcast, std::move(out));
        return success();
      })
      .Case<tile::IotaOp>([&](tile::IotaOp iota) {
        Array out(iota.getType().getElementType(), iota.getType().getShape());
        int64_t dim = iota.getDimAttr().getInt(), flat = 0;
        forEachIndex(out.shape, [&](ArrayRef<int64_t> idx) {
          out.data[flat++] =
              roundTo(out.elementType, static_cast<double>(idx[dim]));
        });
        set(iota, std::move(out));
        return success();
      })
      .Case<tile::TransposeOp>([&](tile::TransposeOp tr) {
        const Array &in = array(tr.getInput());
        ArrayRef<int64_t> perm = tr.getPerm();
        Array out(in.elementType, tr.getType().getShape());
        SmallVector<int64_t> inIndex(in.rank());
        int64_t flat = 0;
        forEachIndex(out.shape, [&](ArrayRef<int64_t> idx) {
          for (auto [d, p] : llvm::enumerate(perm))
            inIndex[p] = idx[d];
          out.data[flat++] = in.data[in.linear(inIndex)];
        });
        set(tr, std::move(out));
        return success();
      })
      // Upstream structure and memory.
      .Case<tensor::SplatOp>([&](tensor::SplatOp splat) {
        set(splat, Array(splat.getType().getElementType(),
                         splat.getType().getShape(), scalar(splat.getInput())));
        return success();
      })
      .Case<tensor::ExtractOp>([&](tensor::ExtractOp extract) {
        const Array &in = array(extract.getTensor());
        setScalar(extract, in.data[in.linear(indices(extract.getIndices()))]);
        return success();
      })
      .Case<memref::DimOp>([&](memref::DimOp dim) -> LogicalResult {
        Buffer b = buffer(dim.getSource());
        int64_t d = index(dim.getIndex());
        if (d < 0 || d >= b->rank())
          return fail(dim, "dimension " + Twine(d) + " is out of range");
        setScalar(dim, b->shape[d]);
        return success();
      })
      .Case<memref::LoadOp, memref::StoreOp>(
          [&](Operation *o) -> LogicalResult {
            bool isLoad = isa<memref::LoadOp>(o);
            Buffer b = buffer(isLoad ? o->getOperand(0) : o->getOperand(1));
            SmallVector<int64_t> idx =
                indices(o->getOperands().drop_front(isLoad ? 1 : 2));
            for (auto [i, d] : llvm::zip(idx, b->shape))
              if (i < 0 || i >= d)
                return fail(o, "memref access out of bounds");
            if (isLoad)
              setScalar(o->getResult(0), b->data[b->linear(idx)]);
            else
              b->data[b->linear(idx)] =
                  roundTo(b->elementType, scalar(o->getOperand(0)));
            return success();
          })
      .Case<scf::ForOp>([&](scf::ForOp loop) -> LogicalResult {
        if (loop.getUnsignedCmp())
          return fail(loop, "loops with unsigned bounds are not supported");
        int64_t lb = index(loop.getLowerBound()),
                ub = index(loop.getUpperBound()), step = index(loop.getStep());
        if (step <= 0)
          return fail(loop, "loop step must be positive, got " + Twine(step));
        SmallVector<RuntimeValue> carried;
        for (Value init : loop.getInitArgs())
          carried.push_back(env[init]);
        SmallVector<RuntimeValue> args;
        Type ivType = loop.getInductionVar().getType();
        unsigned width = integerWidth(ivType);
        // iv + step never wraps: past the type's maximum it is past ub too.
        for (int64_t iv = lb; iv < ub;
             iv = iv > INT64_MAX - step ? ub : iv + step) {
          args.clear();
          args.push_back(
              scalarOf(llvm::APInt(64, iv, true).sextOrTrunc(width), ivType));
          for (RuntimeValue &v : carried)
            args.push_back(std::move(v));
          carried.clear();
          if (failed(runBlock(*loop.getBody(), args, &carried)))
            return failure();
        }
        for (auto [res, v] : llvm::zip(loop.getResults(), carried))
          env[res] = std::move(v);
        return success();
      })
      .Case<scf::IfOp>([&](scf::IfOp branch) -> LogicalResult {
        Region &region = scalar(branch.getCondition()) != 0
                             ? branch.getThenRegion()
                             : branch.getElseRegion();
        if (region.empty())
          return success();
        SmallVector<RuntimeValue> results;
        if (failed(runBlock(region.front(), {}, &results)))
          return failure();
        for (auto [res, v] : llvm::zip(branch.getResults(), results))
          env[res] = v;
        return success();
      })
      // Annotations: regions run in place, synchronization has no meaning in
      // a sequential run, tags are ghost state.
      .Case<schedule::RoleOp, schedule::AsyncOp>(
          [&](Operation *o) -> LogicalResult {
            SmallVector<RuntimeValue> results;
            if (failed(runBlock(o->getRegion(0).front(), {}, &results)))
              return failure();
            for (auto [res, v] : llvm::zip(o->getResults(), results))
              env[res] = v;
            return success();
          })
      .Case<tag::AttachOp>([&](tag::AttachOp attach) {
        // Copy first: inserting the result may rehash the map.
        RuntimeValue value = env[attach.getValue()];
        env[attach] = std::move(value);
        return success();
      })
      .Case<tag::FieldOp>([&](tag::FieldOp field) {
        setScalar(field, 0); // ghost: only assertions read it
        return success();
      })
      .Default([&](Operation *o) -> LogicalResult {
        Dialect *dialect = o->getDialect();
        if (llvm::isa_and_nonnull<tag::TagDialect, schedule::ScheduleDialect>(
                dialect)) {
          for (Value r : o->getResults())
            env[r] = std::monostate();
          return success();
        }
        return fail(o, "the CPU oracle cannot execute '" +
                           o->getName().getStringRef() + "'");
      });
}

namespace {

/// The programs of one thread-block cluster, run together: one at a time,
/// in program order, each up to its next cluster barrier (or its end); when
/// every program waits at a barrier the next round starts. A program that
/// returns while another waits at a barrier is an error: on the GPU the
/// waiting ones would wait for ever.
class ClusterRun {
public:
  explicit ClusterRun(size_t programs) : state(programs, Running) {}

  /// Program `i`'s thread: waits for its turn, runs `body` (which may call
  /// barrier()), and hands the turn on.
  void run(size_t i, llvm::function_ref<LogicalResult()> body) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      turned.wait(lock, [&] { return aborted || turn == i; });
      if (aborted)
        return;
    }
    bool ok = succeeded(body());
    std::lock_guard<std::mutex> lock(mutex);
    if (!ok) {
      abort();
      return;
    }
    state[i] = Done;
    handOn();
  }

  /// Program `i` reached cluster barrier `op`: waits for the next round.
  LogicalResult barrier(size_t i, Operation *op) {
    std::unique_lock<std::mutex> lock(mutex);
    state[i] = Waiting;
    waitingAt = op;
    handOn();
    turned.wait(lock,
                [&] { return aborted || (turn == i && state[i] == Running); });
    return failure(aborted);
  }

  /// Whether a program failed or was stranded (and the others stopped).
  bool failed() const { return aborted; }
  /// The barrier a program waited at while another returned, if one did.
  Operation *stranded = nullptr;

private:
  enum State { Running, Waiting, Done };

  /// Passes the turn to the next program; after the last, starts the next
  /// round if all wait at a barrier.
  void handOn() {
    if (++turn < state.size()) {
      turned.notify_all();
      return;
    }
    bool anyWaiting = llvm::is_contained(state, Waiting);
    if (anyWaiting && llvm::is_contained(state, Done)) {
      stranded = waitingAt;
      abort();
      return;
    }
    if (anyWaiting) {
      std::fill(state.begin(), state.end(), Running);
      turn = 0;
    }
    turned.notify_all();
  }
  void abort() {
    aborted = true;
    turned.notify_all();
  }

  std::mutex mutex;
  std::condition_variable turned;
  std::vector<State> state;
  size_t turn = 0;
  bool aborted = false;
  Operation *waitingAt = nullptr;
};

} // namespace

LogicalResult mlir::tiletag::exec::runKernel(
    tile::KernelOp kernel, ArrayRef<RuntimeValue> operands,
    ArrayRef<int64_t> grid, ArrayRef<std::optional<int64_t>> onlyProgram) {
  // Where a cluster barrier orders the programs of a cluster, they run
  // together; elsewhere each program runs alone.
  SmallVector<int64_t> cluster(grid.size(), 1);
  if (auto launch = kernel->getAttrOfType<schedule::LaunchAttr>(
          schedule::ScheduleDialect::kLaunchAttrName)) {
    for (auto [d, size] : llvm::enumerate(launch.getCluster())) {
      int64_t extent = d < grid.size() ? grid[d] : 1;
      if (extent % size != 0)
        return kernel.emitError()
               << "the grid's extent " << extent << " along dimension " << d
               << " is not a multiple of the cluster's " << size
               << ": the GPU refuses such a launch";
      if (d < grid.size())
        cluster[d] = size;
    }
  }
  bool clusterBarriers =
      kernel
          .walk([](schedule::BarrierOp b) {
            return b.getScope() == schedule::BarrierScope::cluster
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted();
  if (!clusterBarriers)
    cluster.assign(grid.size(), 1);

  SmallVector<int64_t> clusters;
  for (auto [extent, size] : llvm::zip(grid, cluster))
    clusters.push_back(extent / size);
  LogicalResult result = success();
  auto runProgram = [&](Interpreter &interpreter) {
    SmallVector<RuntimeValue> args(operands.begin(), operands.end());
    return interpreter.runBlock(kernel.getBody().front(), args, nullptr);
  };
  forEachIndex(clusters, [&](ArrayRef<int64_t> c) {
    if (failed(result))
      return;
    // The cluster's programs, if a replay selected one of them.
    SmallVector<SmallVector<int64_t>> programs;
    bool selected = false;
    forEachIndex(cluster, [&](ArrayRef<int64_t> offset) {
      SmallVector<int64_t> pid;
      bool chosen = true;
      for (auto [d, o] : llvm::enumerate(offset)) {
        pid.push_back(c[d] * cluster[d] + o);
        if (d < onlyProgram.size() && onlyProgram[d])
          chosen &= pid.back() == *onlyProgram[d];
      }
      selected |= chosen;
      programs.push_back(std::move(pid));
    });
    if (!selected)
      return;
    if (programs.size() == 1) {
      Interpreter interpreter(programs.front(), grid);
      result = runProgram(interpreter);
      return;
    }
    ClusterRun together(programs.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < programs.size(); ++i)
      threads.emplace_back([&, i] {
        Interpreter interpreter(programs[i], grid);
        interpreter.clusterBarrier = [&, i](Operation *op) {
          return together.barrier(i, op);
        };
        together.run(i, [&] { return runProgram(interpreter); });
      });
    for (std::thread &t : threads)
      t.join();
    if (together.stranded)
      together.stranded->emitError(
          "a program of the cluster returned while another waits at this "
          "cluster barrier: on the GPU it would wait for ever");
    result = failure(together.failed());
  });
  return result;
}
