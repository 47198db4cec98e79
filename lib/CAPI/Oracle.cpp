//===- Oracle.cpp - C API: run kernels on the CPU oracle ------------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag-c/Oracle.h"

#include "TileTag/Execution/Launch.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/APFloat.h"

#include <chrono>
#include <cstring>

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::exec;

namespace {
struct CheckResult {
  std::string name;
  Comparison comparison;
};

struct RunResult {
  TileTagOracleStatus status = TileTagOracleSuccess;
  std::string message;
  std::vector<std::pair<std::string, int64_t>> sizes;
  int64_t programs = 0;
  double milliseconds = 0;
  std::vector<CheckResult> checks;
};
} // namespace

static RunResult *unwrap(TileTagOracleRun run) {
  return static_cast<RunResult *>(run.ptr);
}

/// Bytes per element of `type` in its host form (Oracle.h).
static unsigned hostBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isInteger(1))
    return 1;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

static double readHost(Type type, const char *p) {
  if (auto f = llvm::dyn_cast<FloatType>(type)) {
    if (f.isF64()) {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    if (f.isF32()) {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    uint64_t bits = 0;
    std::memcpy(&bits, p, hostBytes(type));
    llvm::APFloat value(f.getFloatSemantics(),
                        llvm::APInt(f.getWidth(), bits));
    bool lost;
    value.convert(llvm::APFloat::IEEEdouble(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
    return value.convertToDouble();
  }
  if (type.isInteger(1))
    return *p != 0;
  int64_t v = 0;
  unsigned bytes = hostBytes(type);
  std::memcpy(&v, p, bytes);
  unsigned shift = 64 - 8 * bytes;
  return static_cast<double>((v << shift) >> shift);
}

static void writeHost(Type type, double value, char *p) {
  if (auto f = llvm::dyn_cast<FloatType>(type)) {
    if (f.isF64()) {
      std::memcpy(p, &value, 8);
      return;
    }
    if (f.isF32()) {
      float v = static_cast<float>(value);
      std::memcpy(p, &v, 4);
      return;
    }
    llvm::APFloat v(value);
    bool lost;
    v.convert(f.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    uint64_t bits = v.bitcastToAPInt().getZExtValue();
    std::memcpy(p, &bits, hostBytes(type));
    return;
  }
  if (type.isInteger(1)) {
    *p = value != 0;
    return;
  }
  int64_t v = static_cast<int64_t>(value);
  std::memcpy(p, &v, hostBytes(type));
}

/// The body of tiletagOracleRun; an error is a bad-input result.
static llvm::Error runOracle(tile::KernelOp kernel,
                             ArrayRef<TileTagBuffer> given,
                             ArrayRef<TileTagNamedDouble> scalarValues,
                             ArrayRef<TileTagNamedInt> sizeValues, bool check,
                             RunResult &result) {
  auto error = [](const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  llvm::Expected<LaunchPlan> planOrErr = LaunchPlan::create(kernel);
  if (!planOrErr)
    return planOrErr.takeError();
  LaunchPlan &plan = *planOrErr;
  const Workload *workload = nullptr;
  if (check) {
    llvm::Expected<const Workload *> w = plan.checkedWorkload();
    if (!w)
      return w.takeError();
    workload = *w;
  }

  // Sizes: given by name, the rest read off the buffers' shapes.
  SmallVector<std::string> fixed;
  for (const TileTagNamedInt &size : sizeValues) {
    if (llvm::Error e = plan.setSize(unwrap(size.name), size.value))
      return e;
    fixed.push_back(unwrap(size.name).str());
  }
  llvm::StringMap<const TileTagBuffer *> byName;
  llvm::StringMap<SmallVector<int64_t>> shapes;
  for (const TileTagBuffer &b : given) {
    StringRef name = unwrap(b.name);
    auto operand = llvm::find_if(plan.operands, [&](const LaunchOperand &o) {
      return o.name == name;
    });
    if (operand == plan.operands.end() || !operand->isBuffer())
      return error("@" + kernel.getSymName() + "'s launch has no memref "
                   "operand named '" + name + "'");
    if (!byName.insert({name, &b}).second)
      return error("operand " + name + " is given twice");
    if (b.rank < 0 || (b.rank && !b.shape))
      return error("operand " + name + " has no shape");
    shapes[name] = SmallVector<int64_t>(b.shape, b.shape + b.rank);
  }
  for (const LaunchOperand &operand : plan.operands)
    if (operand.isBuffer() && !byName.count(operand.name))
      return error("no buffer for operand " + operand.name + " of " +
                   plan.kernelNames());
  if (llvm::Error e = plan.inferSizes(shapes, fixed))
    return e;
  if (llvm::Expected<llvm::StringMap<SmallVector<int64_t>>> all =
          plan.shapes();
      !all)
    return all.takeError();
  for (auto [name, value] : llvm::zip(plan.sizeNames, plan.sizeValues))
    result.sizes.push_back({name, value});

  // Scalars: the workload's defaults, then the given values.
  NamedScalars scalars;
  if (plan.workload)
    for (auto &[name, value] : plan.workload->scalarDefaults)
      scalars[name] = value;
  for (const TileTagNamedDouble &s : scalarValues) {
    StringRef name = unwrap(s.name);
    auto operand = llvm::find_if(plan.operands, [&](const LaunchOperand &o) {
      return o.name == name;
    });
    if (operand == plan.operands.end() || operand->isBuffer())
      return error("@" + kernel.getSymName() + "'s launch has no scalar "
                   "operand named '" + name + "'");
    scalars[name] = roundTo(operand->type, s.value);
  }
  for (const LaunchOperand &operand : plan.operands)
    if (!operand.isBuffer() && !scalars.count(operand.name))
      return error("no value for scalar operand " + operand.name + " of " +
                   plan.kernelNames());

  NamedBuffers buffers;
  for (const LaunchOperand &operand : plan.operands) {
    if (!operand.isBuffer())
      continue;
    const TileTagBuffer &b = *byName[operand.name];
    Type element = llvm::cast<MemRefType>(operand.type).getElementType();
    auto array = std::make_shared<Array>(element, shapes[operand.name]);
    if (array->size() && !b.data)
      return error("operand " + operand.name + " has no data");
    unsigned bytes = hostBytes(element);
    for (int64_t i = 0, e = array->size(); i < e; ++i)
      array->data[i] =
          roundTo(element, readHost(element, static_cast<const char *>(b.data) +
                                                 i * bytes));
    buffers[operand.name] = array;
  }
  for (tile::KernelOp k : plan.kernels)
    for (unsigned i = 0, e = k.getArgumentTypes().size(); i < e; ++i)
      if (k.getArgAttr(i, tile::TileDialect::kNondecreasingAttrName)) {
        Buffer b = buffers.lookup(k.getOperandName(i));
        if (b && !std::is_sorted(b->data.begin(), b->data.end()))
          return error("operand " + k.getOperandName(i) +
                       " must be nondecreasing (tile.nondecreasing), but it "
                       "is not");
      }
  for (tile::KernelOp k : plan.kernels) {
    llvm::Expected<SmallVector<int64_t>> grid = plan.gridOf(k);
    if (!grid)
      return grid.takeError();
    int64_t n = 1;
    for (int64_t g : *grid)
      n *= g;
    result.programs += n;
  }

  if (workload)
    for (const std::string &name : workload->outputs)
      if (!buffers.count(name))
        return error("workload '" + workload->name + "' computes " + name +
                     ", but " + plan.kernelNames() +
                     " has no operand of that name");

  NamedBuffers inputs = copyBuffers(buffers);
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<bool> ran = runOnCPU(plan, plan.kernels, buffers, scalars);
  if (!ran)
    return ran.takeError();
  result.milliseconds = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count();
  if (!*ran) {
    result.status = TileTagOracleRuntimeFailure;
    result.message = plan.kernelNames() + " failed at run time";
    return llvm::Error::success();
  }
  for (const LaunchOperand &operand : plan.operands) {
    if (!operand.isBuffer())
      continue;
    const Array &array = *buffers.lookup(operand.name);
    char *out = static_cast<char *>(byName[operand.name]->data);
    unsigned bytes = hostBytes(array.elementType);
    for (int64_t i = 0, e = array.size(); i < e; ++i)
      writeHost(array.elementType, array.data[i], out + i * bytes);
  }
  if (!workload)
    return llvm::Error::success();
  llvm::StringMap<std::vector<double>> reference =
      workload->reference(inputs, scalars);
  for (const std::string &name : workload->outputs) {
    Comparison c = compareArrays(*buffers.lookup(name), reference[name],
                                 workload->rtol, workload->atol);
    if (!c.matches() && result.status == TileTagOracleSuccess) {
      result.status = TileTagOracleMismatch;
      result.message = name + indexString(buffers.lookup(name)->shape,
                                          c.worst) +
                       " = " + std::to_string(c.got) + ", expected " +
                       std::to_string(c.want) + " (" +
                       std::to_string(c.mismatches) + " of " +
                       std::to_string(c.elements) +
                       " elements out of tolerance)";
    }
    result.checks.push_back({name, c});
  }
  return llvm::Error::success();
}

TileTagOracleRun tiletagOracleRun(MlirOperation op, intptr_t numBuffers,
                                  const TileTagBuffer *buffers,
                                  intptr_t numScalars,
                                  const TileTagNamedDouble *scalars,
                                  intptr_t numSizes,
                                  const TileTagNamedInt *sizes, bool check) {
  auto *result = new RunResult;
  Operation *raw = ::unwrap(op);
  auto kernel = llvm::dyn_cast<tile::KernelOp>(raw);
  llvm::Error error =
      kernel ? runOracle(kernel, ArrayRef(buffers, numBuffers),
                         ArrayRef(scalars, numScalars),
                         ArrayRef(sizes, numSizes), check, *result)
             : llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "tiletagOracleRun expects a "
                                       "tile.kernel");
  if (error) {
    result->status = TileTagOracleBadInput;
    result->message = llvm::toString(std::move(error));
    emitError(raw->getLoc()) << result->message;
  }
  return {result};
}

void tiletagOracleRunDestroy(TileTagOracleRun run) { delete unwrap(run); }

TileTagOracleStatus tiletagOracleRunGetStatus(TileTagOracleRun run) {
  return unwrap(run)->status;
}
MlirStringRef tiletagOracleRunGetMessage(TileTagOracleRun run) {
  return wrap(StringRef(unwrap(run)->message));
}
intptr_t tiletagOracleRunGetNumSizes(TileTagOracleRun run) {
  return unwrap(run)->sizes.size();
}
TileTagNamedInt tiletagOracleRunGetSize(TileTagOracleRun run, intptr_t pos) {
  auto &[name, value] = unwrap(run)->sizes[pos];
  return {wrap(StringRef(name)), value};
}
int64_t tiletagOracleRunGetPrograms(TileTagOracleRun run) {
  return unwrap(run)->programs;
}
double tiletagOracleRunGetMilliseconds(TileTagOracleRun run) {
  return unwrap(run)->milliseconds;
}

static const CheckResult &checkOf(TileTagOracleRun run, intptr_t pos) {
  return unwrap(run)->checks[pos];
}
intptr_t tiletagOracleRunGetNumChecks(TileTagOracleRun run) {
  return unwrap(run)->checks.size();
}
MlirStringRef tiletagOracleRunGetCheckName(TileTagOracleRun run,
                                           intptr_t pos) {
  return wrap(StringRef(checkOf(run, pos).name));
}
bool tiletagOracleRunGetCheckMatches(TileTagOracleRun run, intptr_t pos) {
  return checkOf(run, pos).comparison.matches();
}
int64_t tiletagOracleRunGetCheckElements(TileTagOracleRun run, intptr_t pos) {
  return checkOf(run, pos).comparison.elements;
}
int64_t tiletagOracleRunGetCheckMismatches(TileTagOracleRun run,
                                           intptr_t pos) {
  return checkOf(run, pos).comparison.mismatches;
}
int64_t tiletagOracleRunGetCheckWorst(TileTagOracleRun run, intptr_t pos) {
  return checkOf(run, pos).comparison.worst;
}
double tiletagOracleRunGetCheckGot(TileTagOracleRun run, intptr_t pos) {
  return checkOf(run, pos).comparison.got;
}
double tiletagOracleRunGetCheckExpected(TileTagOracleRun run, intptr_t pos) {
  return checkOf(run, pos).comparison.want;
}
double tiletagOracleRunGetCheckMaxAbsDiff(TileTagOracleRun run,
                                          intptr_t pos) {
  return checkOf(run, pos).comparison.maxAbsDiff;
}
double tiletagOracleRunGetCheckRtol(TileTagOracleRun run, intptr_t pos) {
  return checkOf(run, pos).comparison.rtol;
}
double tiletagOracleRunGetCheckAtol(TileTagOracleRun run, intptr_t pos) {
  return checkOf(run, pos).comparison.atol;
}
