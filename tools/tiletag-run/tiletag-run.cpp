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
#include "TileTag/Execution/RocmRunner.h"
#include "TileTag/Execution/Interpreter.h"
#include "TileTag/Execution/Launch.h"
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
    cl::desc("Where the kernels run: cpu (the sequential oracle), cuda "
             "(compiled with --tiletag-compile-cuda and launched on GPU 0 "
             "through the CUDA driver) or rocm (compiled with "
             "--tiletag-compile-rocm and launched on the first AMD GPU through "
             "the HSA runtime); on a GPU the outputs are also compared with "
             "the CPU oracle"),
    cl::init("cpu"), cl::value_desc("cpu|cuda|rocm"), cl::cat(category));
static cl::opt<std::string>
    chip("chip",
         cl::desc("GPU architecture (default: sm_90a for --device=cuda, "
                  "gfx942 for --device=rocm)"),
         cl::init(""), cl::cat(category));
static cl::opt<unsigned> repeat(
    "repeat",
    cl::desc("With --device=cuda or rocm: launch each kernel N more times "
             "after the "
             "run that is checked, on the same buffers, and report the "
             "median time of those launches"),
    cl::init(0), cl::value_desc("N"), cl::cat(category));
static cl::opt<bool> skipOracle(
    "skip-oracle",
    cl::desc("With --device=cuda or rocm: do not compare with the CPU "
             "oracle (to "
             "time kernels at sizes the sequential oracle would take hours "
             "on; the kernel's proof is then its only check)"),
    cl::cat(category));

namespace {

/// A usage or input error: reported, then exit status 2.
struct UsageError {
  std::string message;
};

/// Throws a UsageError for a failed launch step, or gives its value.
template <typename T> T orThrow(llvm::Expected<T> value) {
  if (!value)
    throw UsageError{llvm::toString(value.takeError())};
  return std::move(*value);
}
void orThrow(llvm::Error error) {
  if (error)
    throw UsageError{llvm::toString(std::move(error))};
}

/// The kernels of one run with everything they share.
struct Job {
  LaunchPlan plan;
  NamedBuffers buffers;
  NamedScalars scalars;
  SmallVector<std::optional<int64_t>> onlyProgram;
};

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

/// The kernels that start a run: --kernel, or every launch head.
SmallVector<tile::KernelOp> planJobs(ModuleOp module) {
  if (!kernelName.empty()) {
    auto k = module.lookupSymbol<tile::KernelOp>(kernelName);
    if (!k) {
      std::string names;
      for (auto kk : module.getOps<tile::KernelOp>())
        names += (names.empty() ? "@" : ", @") + kk.getSymName().str();
      throw UsageError{"no kernel @" + kernelName + " in " + inputFile +
                       "; its kernels: " + (names.empty() ? "none" : names)};
    }
    return {k};
  }
  SmallVector<tile::KernelOp> heads = launchHeads(module);
  if (heads.empty())
    throw UsageError{"no kernel in " + inputFile +
                     " has a tile.launch attribute; add one or name a kernel "
                     "with --kernel"};
  return heads;
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
Job prepareJob(tile::KernelOp head) {
  Job job{orThrow(LaunchPlan::create(head)), {}, {}, {}};
  LaunchPlan &plan = job.plan;
  if (check && !plan.workload)
    throw UsageError{"--check needs a workload: " +
                     llvm::toString(plan.checkedWorkload().takeError())};

  for (const std::string &text : sizes) {
    auto [name, value] = parseAssignment(text, "size");
    orThrow(plan.setSize(name, value));
  }

  // Scalars: workload defaults, then --set.
  llvm::StringMap<Type> scalarTypes;
  for (const LaunchOperand &operand : plan.operands)
    if (!operand.isBuffer())
      scalarTypes[operand.name] = operand.type;
  if (plan.workload)
    for (auto &[name, value] : plan.workload->scalarDefaults)
      job.scalars[name] = value;
  int64_t gridRank = head.getGridAttr().getInt();
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
    if (!plan.hasSize(sizeName))
      throw UsageError{
          "--set " + text + ": '" + sizeName + "' is neither a size (" +
          llvm::join(plan.sizeNames, ", ") +
          "), a scalar operand, nor pid0..pid" + std::to_string(gridRank - 1)};
    orThrow(plan.setSize(sizeName, value));
  }

  // Buffers: one per operand name, shaped by the launch attributes.
  std::mt19937_64 rng(seed);
  llvm::StringMap<SmallVector<int64_t>> shapes = orThrow(plan.shapes());
  for (const LaunchOperand &operand : plan.operands) {
    if (!operand.isBuffer())
      continue;
    auto buffer = std::make_shared<Array>(
        llvm::cast<MemRefType>(operand.type).getElementType(),
        shapes[operand.name]);
    fillRandom(*buffer, rng);
    job.buffers[operand.name] = buffer;
  }
  if (const Workload *workload = plan.workload) {
    for (const std::vector<std::string> *list :
         {&workload->outputs, &workload->scratch})
      for (const std::string &name : *list)
        if (Buffer b = job.buffers.lookup(name))
          std::fill(b->data.begin(), b->data.end(), 0.0);
    for (const std::string &name : workload->outputs)
      if (!job.buffers.count(name))
        throw UsageError{"workload '" + workload->name + "' computes " + name +
                         ", but the run has no operand of that name"};
    if (workload->prepare)
      workload->prepare(job.buffers, rng);
  }
  if (!inputsDir.empty()) {
    if (!llvm::sys::fs::is_directory(inputsDir))
      throw UsageError{"--inputs " + inputsDir + " is not a directory"};
    for (const LaunchOperand &operand : plan.operands) {
      if (!operand.isBuffer())
        continue;
      SmallString<128> path(inputsDir);
      llvm::sys::path::append(path, operand.name + ".npy");
      if (!llvm::sys::fs::exists(path))
        continue;
      std::string error;
      Buffer b = job.buffers.lookup(operand.name);
      std::optional<Array> array = readNpy(path, b->elementType, error);
      if (!array)
        throw UsageError{error};
      if (array->shape != b->shape) {
        std::string want, got;
        llvm::raw_string_ostream w(want), g(got);
        llvm::interleave(b->shape, w, "x");
        llvm::interleave(array->shape, g, "x");
        throw UsageError{path.str().str() + " has shape (" + got +
                         ") but operand " + operand.name + " needs (" + want +
                         ") with these sizes"};
      }
      *b = std::move(*array);
    }
  }
  // Promises the kernel makes about its inputs must hold for the run.
  for (tile::KernelOp k : plan.kernels)
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

/// Runs the kernels of `job` on `buffers` (on the GPU when `gpu` is given);
/// false if one failed at run time.
bool runJob(const Job &job, ArrayRef<tile::KernelOp> kernels,
            const NamedBuffers &buffers, double &millis,
            exec::GpuProgram *gpu = nullptr) {
  if (!gpu) {
    auto start = std::chrono::steady_clock::now();
    bool ok = orThrow(
        runOnCPU(job.plan, kernels, buffers, job.scalars, job.onlyProgram));
    millis = std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - start)
                 .count();
    return ok;
  }
  if (llvm::any_of(job.onlyProgram, [](auto v) { return v.has_value(); }))
    throw UsageError{"--set pid<d> replays one program on the CPU only"};
  millis = 0;
  for (tile::KernelOp k : kernels) {
    SmallVector<int64_t> grid = orThrow(job.plan.gridOf(k));
    double kernelMillis = 0;
    std::string error;
    if (failed(gpu->run(k.getSymName(),
                        bindOperands(k, buffers, job.scalars), grid,
                        kernelMillis, error, repeat))) {
      llvm::errs() << "tiletag-run: @" << k.getSymName()
                   << " on the GPU: " << error << "\n";
      return false;
    }
    millis += kernelMillis;
  }
  return true;
}

/// Compares `got` with `want` elementwise; prints a line, returns the verdict.
bool compare(StringRef what, StringRef name, const Array &got,
             ArrayRef<double> want, double rtol, double atol) {
  Comparison c = compareArrays(got, want, rtol, atol);
  if (c.matches()) {
    llvm::outs() << "  " << what << ": " << name << " matches (" << c.elements
                 << " elements, max |diff| "
                 << llvm::format("%.3g", c.maxAbsDiff) << ", tolerance "
                 << llvm::format("%.3g", atol) << " + "
                 << llvm::format("%.3g", rtol) << " * |ref|)\n";
    return true;
  }
  llvm::outs() << "  " << what << ": " << name << " MISMATCH: " << c.mismatches
               << " of " << c.elements << " elements out of tolerance; worst "
               << name << indexString(got.shape, c.worst) << " = " << c.got
               << ", expected " << c.want << " (|diff| "
               << std::fabs(c.got - c.want) << " > "
               << atol + rtol * std::fabs(c.want) << ")\n";
  return false;
}

/// Compares every memref operand of the job with its copy in `want`, in name
/// order, with the workload's tolerances; true when all match.
bool compareAll(const Job &job, const std::string &what,
                const NamedBuffers &want) {
  const Workload *workload = job.plan.workload;
  double rtol = workload ? workload->rtol : 1e-5;
  double atol = workload ? workload->atol : 1e-6;
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

  if (device != "cpu" && device != "cuda" && device != "rocm")
    throw UsageError{"--device must be cpu, cuda or rocm, not '" + device +
                     "'"};
  if (device == "cpu" && (repeat || skipOracle))
    throw UsageError{std::string(repeat ? "--repeat" : "--skip-oracle") +
                     " needs --device=cuda or --device=rocm"};
  std::unique_ptr<exec::GpuProgram> gpu;
  if (device != "cpu") {
    std::string error;
    if (device == "cuda")
      gpu = exec::CudaProgram::create(
          *module, chip.empty() ? "sm_90a" : StringRef(chip), error);
    else
      gpu = exec::RocmProgram::create(
          *module, chip.empty() ? "gfx942" : StringRef(chip), error);
    if (!gpu)
      throw UsageError{"--device=" + device + ": " + error};
  }

  int status = 0;
  for (tile::KernelOp head : planJobs(*module)) {
    Job job = prepareJob(head);
    const LaunchPlan &plan = job.plan;
    NamedBuffers inputs = copyBuffers(job.buffers);
    std::string sizeText = plan.sizeText();
    std::string names = plan.kernelNames();
    double millis = 0;
    if (!runJob(job, plan.kernels, job.buffers, millis, gpu.get())) {
      llvm::outs() << "run " << names << " (" << sizeText
                   << "): FAILED at run time\n";
      status = std::max(status, 1);
      continue;
    }
    int64_t programs = 0;
    for (tile::KernelOp k : plan.kernels) {
      int64_t n = 1;
      for (int64_t g : orThrow(plan.gridOf(k)))
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
      if (!runJob(job, plan.kernels, cpuBuffers, cpuMillis)) {
        llvm::outs() << "  oracle: the CPU run FAILED\n";
        status = std::max(status, 1);
      } else {
        if (!compareAll(job, "compare with the CPU oracle", cpuBuffers))
          status = std::max(status, 1);
      }
    }

    if (check) {
      const Workload *workload = plan.workload;
      llvm::StringMap<std::vector<double>> ref =
          workload->reference(inputs, job.scalars);
      for (const std::string &name : workload->outputs)
        if (!compare("check " + workload->name, name,
                     *job.buffers.lookup(name), ref[name], workload->rtol,
                     workload->atol))
          status = std::max(status, 1);
    }

    if (other) {
      SmallVector<tile::KernelOp> otherKernels;
      for (tile::KernelOp k : plan.kernels) {
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
          "grid one after another (a thread-block cluster's programs together,\n"
          "round by round between its cluster barriers), and checks the\n"
          "outputs against the float64\n"
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
