//===- Launch.cpp - what a tile.launch runs, at which sizes ---------------===//
//
// Part of the TileTag project.
//
//===----------------------------------------------------------------------===//

#include "TileTag/Execution/Launch.h"

#include "TileTag/Dialect/Tag/IR/TagDialect.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::exec;

static llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "(";
  llvm::interleaveComma(shape, os);
  os << ")";
  return text;
}

tile::LaunchAttr exec::launchOf(tile::KernelOp kernel) {
  return kernel->getAttrOfType<tile::LaunchAttr>(
      tile::TileDialect::kLaunchAttrName);
}

SmallVector<tile::KernelOp> exec::launchHeads(ModuleOp module) {
  llvm::StringSet<> followers;
  for (auto k : module.getOps<tile::KernelOp>()) {
    if (tile::LaunchAttr launch = launchOf(k))
      for (FlatSymbolRefAttr next : launch.getThen())
        followers.insert(next.getValue());
    if (auto ref = k->getAttrOfType<FlatSymbolRefAttr>(
            tag::TagDialect::kContractAttrName))
      followers.insert(ref.getValue());
  }
  SmallVector<tile::KernelOp> heads;
  for (auto k : module.getOps<tile::KernelOp>())
    if (launchOf(k) && !followers.contains(k.getSymName()))
      heads.push_back(k);
  return heads;
}

llvm::Expected<LaunchPlan> LaunchPlan::create(tile::KernelOp head) {
  LaunchPlan plan;
  plan.kernels = tile::launchChain(head);
  for (tile::KernelOp k : plan.kernels) {
    tile::LaunchAttr launch = launchOf(k);
    if (!launch)
      return error("kernel @" + k.getSymName() +
                   " has no tile.launch attribute, so its sizes, grid and "
                   "operand shapes are not known");
    for (FlatSymbolRefAttr next : launch.getThen())
      if (!SymbolTable::lookupNearestSymbolFrom<tile::KernelOp>(
              k, next.getAttr()))
        return error("kernel @" + k.getSymName() + " names @" +
                     next.getValue() +
                     " in 'then', but there is no such kernel");
  }

  if (StringAttr check = launchOf(head).getCheck()) {
    plan.workloadName = check.getValue().str();
    plan.workload = lookupWorkload(plan.workloadName);
  }

  for (tile::KernelOp k : plan.kernels) {
    tile::LaunchAttr launch = launchOf(k);
    for (auto [name, value] :
         llvm::zip(launch.getSizeNames(), launch.getSizeDefaults()))
      if (!llvm::is_contained(plan.sizeNames, name.getValue())) {
        plan.sizeNames.push_back(name.getValue().str());
        plan.sizeValues.push_back(value);
      }
    for (auto [i, type] : llvm::enumerate(k.getArgumentTypes())) {
      std::string name = k.getOperandName(i);
      auto it = llvm::find_if(plan.operands, [&](const LaunchOperand &o) {
        return o.name == name;
      });
      if (it == plan.operands.end()) {
        plan.operands.push_back({name, type});
        continue;
      }
      auto want = llvm::dyn_cast<MemRefType>(it->type);
      auto got = llvm::dyn_cast<MemRefType>(type);
      bool same = want && got ? want.getElementType() == got.getElementType() &&
                                    want.getRank() == got.getRank()
                              : it->type == type;
      if (!same)
        return error("operand " + name +
                     " has different types in the kernels of @" +
                     head.getSymName() + "'s launch");
    }
  }
  return plan;
}

llvm::Expected<const Workload *> LaunchPlan::checkedWorkload() const {
  if (workload)
    return workload;
  if (workloadName.empty())
    return error("kernel @" + tile::KernelOp(kernels.front()).getSymName() +
                 " has no 'check' in its tile.launch");
  return error("kernel @" + tile::KernelOp(kernels.front()).getSymName() +
               " names the unknown workload '" + workloadName +
               "'; known: " + workloadNames());
}

bool LaunchPlan::hasSize(StringRef name) const {
  return llvm::is_contained(sizeNames, name);
}

llvm::Error LaunchPlan::setSize(StringRef name, int64_t value) {
  auto it = llvm::find(sizeNames, name);
  if (it == sizeNames.end())
    return error("unknown size '" + name + "'; sizes of this run: " +
                 llvm::join(sizeNames, ", "));
  if (value < 0)
    return error("size " + name + " must not be negative");
  sizeValues[it - sizeNames.begin()] = value;
  return llvm::Error::success();
}

llvm::Error
LaunchPlan::inferSizes(const llvm::StringMap<SmallVector<int64_t>> &given,
                       ArrayRef<std::string> fixed) {
  // A size is taken from the first operand whose launch shape has it as a
  // whole entry; every other use of it is then checked below.
  llvm::StringSet<> inferred;
  for (tile::KernelOp k : kernels) {
    tile::LaunchAttr launch = launchOf(k);
    for (auto [name, map] :
         llvm::zip(launch.getShapeNames(), launch.getShapes())) {
      auto shape = given.find(name.getValue());
      if (shape == given.end())
        continue;
      if (shape->second.size() != map.getNumResults())
        return error("operand " + name.getValue() + " has rank " +
                     llvm::Twine(shape->second.size()) +
                     " but the launch gives it " +
                     llvm::Twine(map.getNumResults()) + " dimensions");
      for (auto [d, expr] : llvm::enumerate(map.getResults())) {
        auto sym = llvm::dyn_cast<AffineSymbolExpr>(expr);
        if (!sym)
          continue;
        StringRef size = launch.getSizeNames()[sym.getPosition()].getValue();
        if (llvm::is_contained(fixed, size) || !inferred.insert(size).second)
          continue;
        if (llvm::Error e = setSize(size, shape->second[d]))
          return e;
      }
    }
  }
  for (auto &entry : given) {
    llvm::Expected<SmallVector<int64_t>> want = shapeOf(entry.getKey());
    if (!want)
      return want.takeError();
    if (*want != entry.getValue())
      return error("operand " + entry.getKey() + " has shape " +
                   shapeText(entry.getValue()) + " but the launch gives it " +
                   shapeText(*want) + " at " + sizeText());
  }
  return llvm::Error::success();
}

SmallVector<int64_t> LaunchPlan::sizesOf(tile::KernelOp kernel) const {
  SmallVector<int64_t> out;
  for (StringAttr name : launchOf(kernel).getSizeNames())
    out.push_back(
        sizeValues[llvm::find(sizeNames, name.getValue()) - sizeNames.begin()]);
  return out;
}

llvm::Expected<SmallVector<int64_t>>
LaunchPlan::gridOf(tile::KernelOp kernel) const {
  SmallVector<int64_t> grid = launchOf(kernel).evaluateGrid(sizesOf(kernel));
  int64_t programs = 1;
  for (int64_t g : grid)
    programs = g <= 0 ? 0 : std::min(kMaxPrograms + 1, programs * g);
  if (programs > kMaxPrograms)
    return error("@" + kernel.getSymName() + " would launch more than " +
                 llvm::Twine(kMaxPrograms) + " programs at " + sizeText());
  return grid;
}

llvm::Expected<SmallVector<int64_t>> LaunchPlan::shapeOf(StringRef name) const {
  std::optional<SmallVector<int64_t>> found;
  for (tile::KernelOp k : kernels) {
    std::optional<SmallVector<int64_t>> shape =
        launchOf(k).evaluateShape(name, sizesOf(k));
    if (!shape)
      continue;
    if (found && *found != *shape)
      return error("operand " + name +
                   " has different shapes in the kernels of this run");
    for (int64_t d : *shape)
      if (d < 0)
        return error("operand " + name + " of @" + k.getSymName() +
                     " gets a negative size with these problem sizes");
    found = std::move(shape);
  }
  if (!found)
    return error("the launch of @" + tile::KernelOp(kernels.front()).getSymName() +
                 " gives operand " + name + " no shape");
  return *found;
}

llvm::Expected<llvm::StringMap<SmallVector<int64_t>>>
LaunchPlan::shapes() const {
  llvm::StringMap<SmallVector<int64_t>> out;
  int64_t total = 0;
  for (const LaunchOperand &operand : operands) {
    if (!operand.isBuffer())
      continue;
    llvm::Expected<SmallVector<int64_t>> shape = shapeOf(operand.name);
    if (!shape)
      return shape.takeError();
    int64_t elements = 1;
    for (int64_t d : *shape)
      elements = d == 0 ? 0
                        : (elements > kMaxElements / d ? kMaxElements + 1
                                                       : elements * d);
    total += elements;
    if (elements > kMaxElements || total > kMaxElements)
      return error("the operands would hold more than " +
                   llvm::Twine(kMaxElements) + " elements at " + sizeText() +
                   "; the CPU oracle is for checking, pick smaller sizes");
    out[operand.name] = std::move(*shape);
  }
  return out;
}

std::string LaunchPlan::sizeText() const {
  std::string text;
  for (auto [n, v] : llvm::zip(sizeNames, sizeValues))
    text += (text.empty() ? "" : ", ") + n + "=" + std::to_string(v);
  return text;
}

std::string LaunchPlan::kernelNames() const {
  std::string names;
  for (tile::KernelOp k : kernels)
    names += (names.empty() ? "@" : " then @") + k.getSymName().str();
  return names;
}

SmallVector<RuntimeValue> exec::bindOperands(tile::KernelOp kernel,
                                             const NamedBuffers &buffers,
                                             const NamedScalars &scalars) {
  SmallVector<RuntimeValue> operands;
  for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    std::string name = kernel.getOperandName(i);
    if (llvm::isa<MemRefType>(type))
      operands.push_back(buffers.lookup(name));
    else
      operands.push_back(Array(type, {}, scalars.lookup(name)));
  }
  return operands;
}

llvm::Expected<bool>
exec::runOnCPU(const LaunchPlan &plan, ArrayRef<tile::KernelOp> kernels,
               const NamedBuffers &buffers, const NamedScalars &scalars,
               ArrayRef<std::optional<int64_t>> onlyProgram) {
  for (tile::KernelOp k : kernels) {
    llvm::Expected<SmallVector<int64_t>> grid = plan.gridOf(k);
    if (!grid)
      return grid.takeError();
    ArrayRef<std::optional<int64_t>> only;
    if (k == kernels.front())
      only = onlyProgram.take_front(
          std::min<size_t>(onlyProgram.size(), k.getGridAttr().getInt()));
    if (failed(runKernel(k, bindOperands(k, buffers, scalars), *grid, only)))
      return false;
  }
  return true;
}

Comparison exec::compareArrays(const Array &got, ArrayRef<double> want,
                               double rtol, double atol) {
  Comparison c;
  c.elements = got.size();
  c.rtol = rtol;
  c.atol = atol;
  double worstRatio = 0;
  for (int64_t i = 0, e = got.size(); i < e; ++i) {
    double diff = std::fabs(got.data[i] - want[i]);
    bool nanMismatch = std::isnan(got.data[i]) != std::isnan(want[i]);
    double ratio =
        nanMismatch ? INFINITY : diff / (atol + rtol * std::fabs(want[i]));
    if (std::isnan(ratio))
      ratio = 0; // both NaN
    if (ratio > 1)
      ++c.mismatches;
    if (ratio > worstRatio || c.worst < 0) {
      worstRatio = ratio;
      c.worst = i;
    }
    if (!nanMismatch && !std::isnan(diff))
      c.maxAbsDiff = std::max(c.maxAbsDiff, diff);
  }
  if (c.worst >= 0) {
    c.got = got.data[c.worst];
    c.want = want[c.worst];
  }
  return c;
}

std::string exec::indexString(ArrayRef<int64_t> shape, int64_t flat) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(index, os);
  os << "]";
  return s;
}

NamedBuffers exec::copyBuffers(const NamedBuffers &buffers) {
  NamedBuffers out;
  for (auto &entry : buffers)
    out[entry.getKey()] = std::make_shared<Array>(*entry.getValue());
  return out;
}
