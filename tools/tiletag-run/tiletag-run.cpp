//===- tiletag-run.cpp - run tile kernels on the CPU oracle ---------------===//
//
// Part of the TileTag project.
//
// Runs a tile kernel with its sequential meaning on random or given inputs,
// and checks it against the float64 reference of its workload (--check) or
// against another version of the kernel (--compare).
//
// Exit status: 0 success; 1 a check or comparison failed, or the kernel
// failed at run time; 2 bad usage or bad input.
//
//===----------------------------------------------------------------------===//

#include "TileTag/CommandServer/CommandServer.h"
#include "TileTag/Dialect/Tag/IR/TagDialect.h"
#include "TileTag/Dialect/Tile/IR/TileOps.h"
#include "TileTag/Execution/CudaRunner.h"
#include "TileTag/Execution/Interpreter.h"
#include "TileTag/Execution/Npy.h"
#include "TileTag/Execution/Workloads.h"
#include "TileTag/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>

using namespace mlir;
using namespace mlir::tiletag;
using namespace mlir::tiletag::exec;

namespace cl = llvm::cl;

static cl::OptionCategory category("tiletag-run options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<kernel file>"),
                                      cl::Required, cl::cat(category));
static cl::opt<std::string>
    kernelName("kernel",
               cl::desc("Run only this kernel (and the kernels its tile.launch "
                        "names in 'then'); default: every kernel with a "
                        "tile.launch that no other kernel runs after itself "
                        "and that is no other kernel's contract (tag.contract)"),
               cl::value_desc("name"), cl::cat(category));
static cl::list<std::string>
    sizes("size",
          cl::desc("Problem sizes, e.g. --size M=200,N=136,K=100 (default: "
                   "the sizes declared in the kernel's tile.launch)"),
          cl::value_desc("NAME=VALUE,..."), cl::CommaSeparated,
          cl::cat(category));
static cl::list<std::string>
    sets("set",
         cl::desc("Fix a size, a scalar operand (e.g. causal=1) or a program "
                  "id (pid0, pid1, pid2: run only programs with that "
                  "coordinate), e.g. to replay a counterexample"),
         cl::value_desc("NAME=VALUE"), cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the random inputs"),
                              cl::init(0), cl::cat(category));
static cl::opt<bool> check("check",
                           cl::desc("Compare the outputs against the float64 "
                                    "reference of the kernel's workload"),
                           cl::cat(category));
static cl::opt<std::string>
    compareFile("compare",
                cl::desc("Run the same kernels of another file on the same "
                         "inputs and compare every memref operand"),
                cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string>
    inputsDir("inputs",
              cl::desc("Read operand NAME from DIR/NAME.npy where present"),
              cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string> outputsDir(
    "outputs",
    cl::desc("Write every memref operand to DIR/NAME.npy after the run"),
    cl::value_desc("dir"), cl::cat(category));

static cl::opt<std::string> device(
    "device",
    cl::desc("Where the kernels run: cpu (the sequential oracle) or cuda "
             "(compiled with --tiletag-compile-cuda and launched on GPU 0; "
             "the outputs are then also compared with the CPU oracle)"),
    cl::init("cpu"), cl::value_desc("cpu|cuda"), cl::cat(category));
static cl::opt<std::string> chip("chip",
                                 cl::desc("GPU architecture for --device=cuda"),
                                 cl::init("sm_90a"), cl::cat(category));
static cl::opt<unsigned> repeat(
    "repeat",
    cl::desc("With --device=cuda: launch each kernel N more times after the "
             "run that is checked, on the same buffers, and report the "
             "median time of those launches"),
    cl::init(0), cl::value_desc("N"), cl::cat(category));
static cl::opt<bool> skipOracle(
    "skip-oracle",
    cl::desc("With --device=cuda: do not compare with the CPU oracle (to "
             "time kernels at sizes the sequential oracle would take hours "
             "on; the kernel's proof is then its only check)"),
    cl::cat(category));

namespace {

/// Limits that keep a mistyped size from exhausting the machine.
constexpr int64_t kMaxElements = int64_t{1} << 31;
constexpr int64_t kMaxPrograms = int64_t{1} << 24;

/// A usage or input error: reported, then exit status 2.
struct UsageError {
  std::string message;
};

/// The kernels of one run, in launch order, with everything they share.
struct Job {
  SmallVector<tile::KernelOp> kernels;
  SmallVector<std::string> sizeNames;
  SmallVector<int64_t> sizeValues;
  NamedBuffers buffers;
  NamedScalars scalars;
  SmallVector<std::optional<int64_t>> onlyProgram;
  const Workload *workload = nullptr;
};

tile::LaunchAttr launchOf(tile::KernelOp kernel) {
  return kernel->getAttrOfType<tile::LaunchAttr>(
      tile::TileDialect::kLaunchAttrName);
}

/// The job's size values in the order `launch` declares its sizes (its
/// affine expressions number the sizes in that order).
SmallVector<int64_t> sizesFor(tile::LaunchAttr launch,
                              ArrayRef<std::string> names,
                              ArrayRef<int64_t> values) {
  SmallVector<int64_t> out;
  for (StringAttr name : launch.getSizeNames())
    out.push_back(values[llvm::find(names, name.getValue()) - names.begin()]);
  return out;
}

std::pair<std::string, int64_t> parseAssignment(StringRef text,
                                                StringRef option) {
  auto [name, value] = text.split('=');
  int64_t v;
  // Sizes and program ids are integers: "M=3.5" is refused, not truncated.
  if (name.empty() || value.trim().getAsInteger(10, v))
    throw UsageError{("--" + option + " expects NAME=VALUE, got '" + text +
                      "' (sizes and program ids are integers)")
                         .str()};
  return {name.trim().str(), v};
}

/// Collects the kernels of each job in `module`.
std::vector<SmallVector<tile::KernelOp>> planJobs(ModuleOp module) {
  llvm::StringMap<tile::KernelOp> byName;
  SmallVector<tile::KernelOp> all;
  for (auto kernel : module.getOps<tile::KernelOp>()) {
    byName[kernel.getSymName()] = kernel;
    all.push_back(kernel);
  }
  auto chain = [&](tile::KernelOp head) {
    SmallVector<tile::KernelOp> kernels{head};
    for (size_t i = 0; i < kernels.size(); ++i) {
      tile::LaunchAttr launch = launchOf(kernels[i]);
      if (!launch)
        throw UsageError{("kernel @" + kernels[i].getSymName() +
                          " has no tile.launch attribute, so tiletag-run does "
                          "not know its sizes, grid and operand shapes")
                             .str()};
      for (FlatSymbolRefAttr next : launch.getThen()) {
        tile::KernelOp k = byName.lookup(next.getValue());
        if (!k)
          throw UsageError{("kernel @" + kernels[i].getSymName() + " names @" +
                            next.getValue() +
                            " in 'then', but there is no such kernel")
                               .str()};
        if (kernels.size() > 16)
          throw UsageError{"the 'then' chain of @" + head.getSymName().str() +
                           " does not end"};
        kernels.push_back(k);
      }
    }
    return kernels;
  };
  std::vector<SmallVector<tile::KernelOp>> jobs;
  if (!kernelName.empty()) {
    tile::KernelOp k = byName.lookup(kernelName);
    if (!k) {
      std::string names;
      for (tile::KernelOp kk : all)
        names += (names.empty() ? "@" : ", @") + kk.getSymName().str();
      throw UsageError{"no kernel @" + kernelName + " in " + inputFile +
                       "; its kernels: " + (names.empty() ? "none" : names)};
    }
    jobs.push_back(chain(k));
    return jobs;
  }
  // Kernels run after others, and reference kernels (the contracts of
  // others: specifications), do not start jobs of their own.
  llvm::StringSet<> followers;
  for (tile::KernelOp k : all) {
    if (tile::LaunchAttr launch = launchOf(k))
      for (FlatSymbolRefAttr next : launch.getThen())
        followers.insert(next.getValue());
    if (auto ref = k->getAttrOfType<FlatSymbolRefAttr>(
            tag::TagDialect::kContractAttrName))
      followers.insert(ref.getValue());
  }
  for (tile::KernelOp k : all)
    if (launchOf(k) && !followers.contains(k.getSymName()))
      jobs.push_back(chain(k));
  if (jobs.empty())
    throw UsageError{"no kernel in " + inputFile +
                     " has a tile.launch attribute; add one or name a kernel "
                     "with --kernel"};
  return jobs;
}

/// Fills `array` with uniform random values in [-1, 1) (integers in [0, 4)).
void fillRandom(Array &array, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(0, 3);
  bool isFloat = llvm::isa<FloatType>(array.elementType);
  for (double &x : array.data)
    x = roundTo(array.elementType, isFloat ? real(rng) : small(rng));
}

/// Sizes, buffers and scalars of a job, per the launch attributes and flags.
Job prepareJob(SmallVector<tile::KernelOp> kernels) {
  Job job;
  job.kernels = std::move(kernels);
  tile::LaunchAttr head = launchOf(job.kernels.front());
  if (head.getCheck()) {
    job.workload = lookupWorkload(head.getCheck().getValue());
    if (!job.workload && check)
      throw UsageError{("kernel @" + job.kernels.front().getSymName() +
                        " names the unknown workload '" +
                        head.getCheck().getValue() +
                        "'; known: " + workloadNames())
                           .str()};
  }
  if (check && !job.workload)
    throw UsageError{("--check needs a workload: kernel @" +
                      job.kernels.front().getSymName() +
                      " has no 'check' in its tile.launch")
                         .str()};

  // Sizes: each kernel's defaults (the first declaration wins), then flags.
  for (tile::KernelOp k : job.kernels) {
    tile::LaunchAttr launch = launchOf(k);
    for (auto [name, value] :
         llvm::zip(launch.getSizeNames(), launch.getSizeDefaults()))
      if (!llvm::is_contained(job.sizeNames, name.getValue())) {
        job.sizeNames.push_back(name.getValue().str());
        job.sizeValues.push_back(value);
      }
  }
  auto setSize = [&](const std::string &name, int64_t value) {
    auto it = llvm::find(job.sizeNames, name);
    if (it == job.sizeNames.end())
      return false;
    if (value < 0)
      throw UsageError{"size " + name + " must not be negative"};
    job.sizeValues[it - job.sizeNames.begin()] = value;
    return true;
  };
  for (const std::string &text : sizes) {
    auto [name, value] = parseAssignment(text, "size");
    if (!setSize(name, value))
      throw UsageError{"unknown size '" + name + "'; sizes of this run: " +
                       llvm::join(job.sizeNames, ", ")};
  }

  // Scalars: workload defaults, then --set.
  llvm::StringMap<Type> scalarTypes;
  for (tile::KernelOp k : job.kernels)
    for (auto [i, type] : llvm::enumerate(k.getArgumentTypes()))
      if (!llvm::isa<MemRefType>(type))
        scalarTypes[k.getOperandName(i)] = type;
  if (job.workload)
    for (auto &[name, value] : job.workload->scalarDefaults)
      job.scalars[name] = value;
  int64_t gridRank = tile::KernelOp(job.kernels.front()).getGridAttr().getInt();
  job.onlyProgram.assign(gridRank, std::nullopt);
  for (const std::string &text : sets) {
    StringRef name = StringRef(text).split('=').first.trim();
    if (name.consume_front("pid")) {
      unsigned d;
      auto [_, value] = parseAssignment(text, "set");
      if (name.getAsInteger(10, d) || d >= gridRank)
        throw UsageError{"--set " + text + ": the grid has rank " +
                         std::to_string(gridRank) + " (pid0 to pid" +
                         std::to_string(gridRank - 1) + ")"};
      job.onlyProgram[d] = value;
      continue;
    }
    if (scalarTypes.count(name)) {
      double value;
      if (!llvm::to_float(StringRef(text).split('=').second.trim(), value))
        throw UsageError{"--set " + text + ": the value is not a number"};
      job.scalars[name] = roundTo(scalarTypes[name], value);
      continue;
    }
    auto [sizeName, value] = parseAssignment(text, "set");
    if (!setSize(sizeName, value))
      throw UsageError{
          "--set " + text + ": '" + sizeName + "' is neither a size (" +
          llvm::join(job.sizeNames, ", ") +
          "), a scalar operand, nor pid0..pid" + std::to_string(gridRank - 1)};
  }

  // Buffers: one per operand name, shaped by the launch attributes.
  std::mt19937_64 rng(seed);
  int64_t totalElements = 0;
  SmallVector<std::string> order;
  for (tile::KernelOp k : job.kernels) {
    tile::LaunchAttr launch = launchOf(k);
    for (auto [i, type] : llvm::enumerate(k.getArgumentTypes())) {
      auto memref = llvm::dyn_cast<MemRefType>(type);
      if (!memref)
        continue;
      std::string name = k.getOperandName(i);
      SmallVector<int64_t> shape = *launch.evaluateShape(
          name, sizesFor(launch, job.sizeNames, job.sizeValues));
      for (int64_t d : shape)
        if (d < 0)
          throw UsageError{"operand " + name + " of @" + k.getSymName().str() +
                           " gets a negative size with these problem sizes"};
      int64_t elements = 1;
      for (int64_t d : shape)
        elements = d == 0 ? 0
                          : (elements > kMaxElements / d ? kMaxElements + 1
                                                         : elements * d);
      totalElements += elements;
      if (elements > kMaxElements || totalElements > kMaxElements)
        throw UsageError{"the operands would hold more than " +
                         std::to_string(kMaxElements) +
                         " elements at these sizes; the CPU oracle is for "
                         "checking, pick smaller sizes"};
      if (Buffer existing = job.buffers.lookup(name)) {
        if (existing->shape != shape ||
            existing->elementType != memref.getElementType())
          throw UsageError{"operand " + name +
                           " has different shapes or element "
                           "types in the kernels of this run"};
        continue;
      }
      auto buffer = std::make_shared<Array>(memref.getElementType(), shape);
      fillRandom(*buffer, rng);
      job.buffers[name] = buffer;
      order.push_back(name);
    }
  }
  if (job.workload) {
    for (const std::vector<std::string> *list :
         {&job.workload->outputs, &job.workload->scratch})
      for (const std::string &name : *list)
        if (Buffer b = job.buffers.lookup(name))
          std::fill(b->data.begin(), b->data.end(), 0.0);
    for (const std::string &name : job.workload->outputs)
      if (!job.buffers.count(name))
        throw UsageError{"workload '" + job.workload->name + "' computes " +
                         name + ", but the run has no operand of that name"};
    if (job.workload->prepare)
      job.workload->prepare(job.buffers, rng);
  }
  if (!inputsDir.empty()) {
    if (!llvm::sys::fs::is_directory(inputsDir))
      throw UsageError{"--inputs " + inputsDir + " is not a directory"};
    for (const std::string &name : order) {
      SmallString<128> path(inputsDir);
      llvm::sys::path::append(path, name + ".npy");
      if (!llvm::sys::fs::exists(path))
        continue;
      std::string error;
      Buffer b = job.buffers.lookup(name);
      std::optional<Array> array = readNpy(path, b->elementType, error);
      if (!array)
        throw UsageError{error};
      if (array->shape != b->shape) {
        std::string want, got;
        llvm::raw_string_ostream w(want), g(got);
        llvm::interleave(b->shape, w, "x");
        llvm::interleave(array->shape, g, "x");
        throw UsageError{path.str().str() + " has shape (" + got +
                         ") but operand " + name + " needs (" + want +
                         ") with these sizes"};
      }
      *b = std::move(*array);
    }
  }
  // Promises the kernel makes about its inputs must hold for the run.
  for (tile::KernelOp k : job.kernels)
    for (unsigned i = 0, e = k.getArgumentTypes().size(); i < e; ++i)
      if (k.getArgAttr(i, tile::TileDialect::kNondecreasingAttrName)) {
        Buffer b = job.buffers.lookup(k.getOperandName(i));
        if (b && !std::is_sorted(b->data.begin(), b->data.end()))
          throw UsageError{
              "operand " + k.getOperandName(i) +
              " must be nondecreasing (tile.nondecreasing), but its "
              "input is not"};
      }
  return job;
}

/// A deep copy of every buffer, so two runs start from the same inputs.
NamedBuffers copyBuffers(const NamedBuffers &buffers) {
  NamedBuffers out;
  for (auto &entry : buffers)
    out[entry.getKey()] = std::make_shared<Array>(*entry.getValue());
  return out;
}

/// Runs the kernels of `job` on `buffers` (on the GPU when `gpu` is given);
/// false if one failed at run time.
bool runJob(const Job &job, ArrayRef<tile::KernelOp> kernels,
            const NamedBuffers &buffers, double &millis,
            exec::CudaProgram *gpu = nullptr) {
  auto start = std::chrono::steady_clock::now();
  double gpuMillis = 0;
  for (tile::KernelOp k : kernels) {
    SmallVector<RuntimeValue> operands;
    for (auto [i, type] : llvm::enumerate(k.getArgumentTypes())) {
      std::string name = k.getOperandName(i);
      if (llvm::isa<MemRefType>(type))
        operands.push_back(buffers.lookup(name));
      else
        operands.push_back(Array(type, {}, job.scalars.lookup(name)));
    }
    tile::LaunchAttr launch = launchOf(k);
    SmallVector<int64_t> grid =
        launch.evaluateGrid(sizesFor(launch, job.sizeNames, job.sizeValues));
    int64_t programs = 1;
    for (int64_t g : grid)
      programs = g <= 0 ? 0 : std::min(kMaxPrograms + 1, programs * g);
    if (programs > kMaxPrograms)
      throw UsageError{"@" + k.getSymName().str() + " would launch more than " +
                       std::to_string(kMaxPrograms) +
                       " programs at these sizes"};
    ArrayRef<std::optional<int64_t>> only = job.onlyProgram;
    if (static_cast<int64_t>(only.size()) > k.getGridAttr().getInt())
      only = only.take_front(k.getGridAttr().getInt());
    if (gpu) {
      if (llvm::any_of(only, [](auto v) { return v.has_value(); }))
        throw UsageError{"--set pid<d> replays one program on the CPU only"};
      double kernelMillis = 0;
      std::string error;
      if (failed(gpu->run(k.getSymName(), operands, grid, kernelMillis, error,
                          repeat))) {
        llvm::errs() << "tiletag-run: @" << k.getSymName()
                     << " on the GPU: " << error << "\n";
        return false;
      }
      gpuMillis += kernelMillis;
      continue;
    }
    if (failed(runKernel(k, operands, grid,
                         k == kernels.front()
                             ? only
                             : ArrayRef<std::optional<int64_t>>{})))
      return false;
  }
  millis = gpu ? gpuMillis
               : std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - start)
                     .count();
  return true;
}

std::string indexString(ArrayRef<int64_t> shape, int64_t flat) {
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

/// Compares `got` with `want` elementwise; prints a line, returns the verdict.
bool compare(StringRef what, StringRef name, const Array &got,
             ArrayRef<double> want, double rtol, double atol) {
  int64_t worst = -1, bad = 0;
  double worstRatio = 0, maxAbs = 0;
  for (int64_t i = 0, e = got.size(); i < e; ++i) {
    double diff = std::fabs(got.data[i] - want[i]);
    bool nanMismatch = std::isnan(got.data[i]) != std::isnan(want[i]);
    double ratio =
        nanMismatch ? INFINITY : diff / (atol + rtol * std::fabs(want[i]));
    if (std::isnan(ratio))
      ratio = 0; // both NaN
    if (ratio > 1)
      ++bad;
    if (ratio > worstRatio || worst < 0) {
      worstRatio = ratio;
      worst = i;
    }
    if (!nanMismatch && !std::isnan(diff))
      maxAbs = std::max(maxAbs, diff);
  }
  if (bad == 0) {
    llvm::outs() << "  " << what << ": " << name << " matches (" << got.size()
                 << " elements, max |diff| " << llvm::format("%.3g", maxAbs)
                 << ", tolerance " << llvm::format("%.3g", atol) << " + "
                 << llvm::format("%.3g", rtol) << " * |ref|)\n";
    return true;
  }
  llvm::outs() << "  " << what << ": " << name << " MISMATCH: " << bad << " of "
               << got.size() << " elements out of tolerance; worst " << name
               << indexString(got.shape, worst) << " = " << got.data[worst]
               << ", expected " << want[worst] << " (|diff| "
               << std::fabs(got.data[worst] - want[worst]) << " > "
               << atol + rtol * std::fabs(want[worst]) << ")\n";
  return false;
}

/// Compares every memref operand of the job with its copy in `want`, in name
/// order, with the workload's tolerances; true when all match.
bool compareAll(const Job &job, const std::string &what,
                const NamedBuffers &want) {
  double rtol = job.workload ? job.workload->rtol : 1e-5;
  double atol = job.workload ? job.workload->atol : 1e-6;
  SmallVector<StringRef> names;
  for (auto &entry : job.buffers)
    names.push_back(entry.getKey());
  llvm::sort(names);
  bool ok = true;
  for (StringRef name : names)
    ok &= compare(what, name, *job.buffers.lookup(name),
                  want.lookup(name)->data, rtol, atol);
  return ok;
}

int runMain(MLIRContext &context, llvm::SourceMgr &sourceMgr) {
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 2;
  OwningOpRef<ModuleOp> other;
  if (!compareFile.empty()) {
    other = parseSourceFile<ModuleOp>(compareFile, &context);
    if (!other)
      return 2;
  }

  if (device != "cuda" && (repeat || skipOracle))
    throw UsageError{std::string(repeat ? "--repeat" : "--skip-oracle") +
                     " needs --device=cuda"};
  std::unique_ptr<exec::CudaProgram> gpu;
  if (device == "cuda") {
    std::string error;
    gpu = exec::CudaProgram::create(*module, chip, error);
    if (!gpu)
      throw UsageError{"--device=cuda: " + error};
  } else if (device != "cpu") {
    throw UsageError{"--device must be cpu or cuda, not '" + device + "'"};
  }

  int status = 0;
  for (SmallVector<tile::KernelOp> &kernels : planJobs(*module)) {
    Job job = prepareJob(kernels);
    NamedBuffers inputs = copyBuffers(job.buffers);

    std::string sizeText;
    for (auto [n, v] : llvm::zip(job.sizeNames, job.sizeValues))
      sizeText += (sizeText.empty() ? "" : ", ") + n + "=" + std::to_string(v);
    std::string names;
    for (tile::KernelOp k : job.kernels)
      names += (names.empty() ? "@" : " then @") + k.getSymName().str();
    double millis = 0;
    if (!runJob(job, job.kernels, job.buffers, millis, gpu.get())) {
      llvm::outs() << "run " << names << " (" << sizeText
                   << "): FAILED at run time\n";
      status = std::max(status, 1);
      continue;
    }
    int64_t programs = 0;
    for (tile::KernelOp k : job.kernels) {
      int64_t n = 1;
      tile::LaunchAttr launch = launchOf(k);
      for (int64_t g :
           launch.evaluateGrid(sizesFor(launch, job.sizeNames, job.sizeValues)))
        n *= g;
      programs += n;
    }
    llvm::outs() << "run " << names << " (" << sizeText << "): " << programs
                 << " programs in "
                 << llvm::format(repeat ? "%.4f" : "%.1f", millis) << " ms"
                 << (gpu ? " on the GPU" : "");
    if (repeat)
      llvm::outs() << " (median of " << repeat << " launches)";
    llvm::outs() << "\n";

    // GPU results are checked against the sequential meaning.
    if (gpu && !skipOracle) {
      NamedBuffers cpuBuffers = copyBuffers(inputs);
      double cpuMillis = 0;
      if (!runJob(job, job.kernels, cpuBuffers, cpuMillis)) {
        llvm::outs() << "  oracle: the CPU run FAILED\n";
        status = std::max(status, 1);
      } else {
        if (!compareAll(job, "compare with the CPU oracle", cpuBuffers))
          status = std::max(status, 1);
      }
    }

    if (check) {
      llvm::StringMap<std::vector<double>> ref =
          job.workload->reference(inputs, job.scalars);
      for (const std::string &name : job.workload->outputs)
        if (!compare("check " + job.workload->name, name,
                     *job.buffers.lookup(name), ref[name], job.workload->rtol,
                     job.workload->atol))
          status = std::max(status, 1);
    }

    if (other) {
      SmallVector<tile::KernelOp> otherKernels;
      for (tile::KernelOp k : job.kernels) {
        auto match = other->lookupSymbol<tile::KernelOp>(k.getSymName());
        if (!match)
          throw UsageError{compareFile + " has no kernel @" +
                           k.getSymName().str()};
        otherKernels.push_back(match);
      }
      NamedBuffers otherBuffers = copyBuffers(inputs);
      double otherMillis = 0;
      if (!runJob(job, otherKernels, otherBuffers, otherMillis)) {
        llvm::outs() << "  compare: the other kernel FAILED at run time\n";
        status = std::max(status, 1);
      } else {
        if (!compareAll(job,
                        "compare with " +
                            llvm::sys::path::filename(compareFile).str(),
                        otherBuffers))
          status = std::max(status, 1);
      }
    }

    if (!outputsDir.empty()) {
      if (std::error_code ec = llvm::sys::fs::create_directories(outputsDir))
        throw UsageError{"cannot create " + outputsDir + ": " + ec.message()};
      for (auto &entry : job.buffers) {
        SmallString<128> path(outputsDir);
        llvm::sys::path::append(path, entry.getKey() + ".npy");
        std::string error;
        if (failed(writeNpy(path, *entry.getValue(), error)))
          throw UsageError{error};
      }
    }
  }
  return status;
}

} // namespace

static int runTool(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(category);
  std::string parseErrors;
  llvm::raw_string_ostream errs(parseErrors);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "tiletag-run: run tile kernels with their sequential meaning on the "
          "CPU\n\n"
          "Makes random inputs (or reads .npy files), runs every program of "
          "the\n"
          "grid one after another, and checks the outputs against the float64\n"
          "reference of the kernel's workload (--check: " +
              workloadNames() +
              ")\nor against another version of the kernel (--compare).\n"
              "Exit status: 0 success, 1 mismatch or run-time failure, 2 bad "
              "input.\n\n" +
              tiletag::kServeHelp,
          &errs)) {
    llvm::errs() << errs.str();
    return 2;
  }

  MLIRContext context;
  context.printOpOnDiagnostic(false);
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFile, &error);
  if (!file) {
    llvm::errs() << "tiletag-run: " << error << "\n";
    return 2;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  try {
    return runMain(context, sourceMgr);
  } catch (const UsageError &e) {
    llvm::errs() << "tiletag-run: error: " << e.message << "\n";
    return 2;
  }
}

int main(int argc, char **argv) {
  if (argc == 2 && StringRef(argv[1]) == tiletag::kServeFlag)
    return tiletag::serveCommandLines("tiletag-run", runTool);
  return runTool(argc, argv);
}
