//===- TileTagModule.cpp - the tiletag._tiletag extension -----------------===//
//
// Part of the TileTag project.
//
// A thin pybind11 layer over TileTag's C API and upstream's mlir-c: contexts,
// modules and operations with the diagnostics each call emitted, verdicts,
// estimates and oracle runs as plain Python dicts. The `tiletag` package
// builds its Python objects (dataclasses, errors with source lines) on top.
//
//===----------------------------------------------------------------------===//

#include "TileTag-c/Compile.h"
#include "TileTag-c/CostModel.h"
#include "TileTag-c/Dialects.h"
#include "TileTag-c/Kernel.h"
#include "TileTag-c/Oracle.h"
#include "TileTag-c/Verification.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

std::string toString(MlirStringRef s) { return std::string(s.data, s.length); }
MlirStringRef ref(const std::string &s) {
  return mlirStringRefCreate(s.data(), s.size());
}
void appendTo(MlirStringRef s, void *out) {
  static_cast<std::string *>(out)->append(s.data, s.length);
}

/// A location as a dict: "file", "line", "col" where it has them, and its
/// printed form.
py::dict locationDict(MlirLocation loc) {
  py::dict d;
  std::string printed;
  mlirLocationPrint(loc, appendTo, &printed);
  d["text"] = printed;
  if (mlirLocationIsAFileLineColRange(loc)) {
    d["file"] = toString(mlirIdentifierStr(
        mlirLocationFileLineColRangeGetFilename(loc)));
    d["line"] = mlirLocationFileLineColRangeGetStartLine(loc);
    d["col"] = mlirLocationFileLineColRangeGetStartColumn(loc);
  }
  return d;
}

const char *severityName(MlirDiagnosticSeverity s) {
  switch (s) {
  case MlirDiagnosticError:
    return "error";
  case MlirDiagnosticWarning:
    return "warning";
  case MlirDiagnosticNote:
    return "note";
  case MlirDiagnosticRemark:
    return "remark";
  }
  return "error";
}

py::dict diagnosticDict(MlirDiagnostic d) {
  py::dict out = locationDict(mlirDiagnosticGetLocation(d));
  std::string message;
  mlirDiagnosticPrint(d, appendTo, &message);
  out["severity"] = severityName(mlirDiagnosticGetSeverity(d));
  out["message"] = message;
  py::list notes;
  for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(d); i < e; ++i)
    notes.append(diagnosticDict(mlirDiagnosticGetNote(d, i)));
  out["notes"] = notes;
  return out;
}

/// A context with everything TileTag registers, and the diagnostics emitted
/// since they were last taken.
struct Context {
  MlirContext ctx;
  py::list diagnostics;

  Context() {
    static bool passesRegistered = [] {
      tiletagRegisterAllPasses();
      return true;
    }();
    (void)passesRegistered;
    ctx = tiletagContextCreate();
    mlirContextAttachDiagnosticHandler(ctx, &Context::handle, this, nullptr);
  }
  ~Context() { mlirContextDestroy(ctx); }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  static MlirLogicalResult handle(MlirDiagnostic d, void *self) {
    py::gil_scoped_acquire gil;
    static_cast<Context *>(self)->diagnostics.append(diagnosticDict(d));
    return mlirLogicalResultSuccess();
  }
  py::list take() {
    py::list out = diagnostics;
    diagnostics = py::list();
    return out;
  }
};

/// A module and the context it lives in. `generation` counts the passes and
/// scripts run on it: each may erase any operation.
struct Module {
  std::shared_ptr<Context> context;
  MlirModule module;
  uint64_t generation = 0;
  Module(std::shared_ptr<Context> context, MlirModule module)
      : context(std::move(context)), module(module) {}
  ~Module() { mlirModuleDestroy(module); }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
};

/// An operation of a module (which it keeps alive), usable until a pass or
/// script changes the module.
struct Operation {
  std::shared_ptr<Module> owner;
  MlirOperation op;
  uint64_t generation;

  MlirOperation get() const {
    if (generation != owner->generation)
      throw py::value_error("this operation was taken from the module before a "
                            "pass or transform script changed it (which may "
                            "have erased it): take it from the module again");
    return op;
  }
};

Operation operationOf(const std::shared_ptr<Module> &owner, MlirOperation op) {
  return {owner, op, owner->generation};
}

void requireKernel(const Operation &o) {
  if (!tiletagOperationIsAKernel(o.get()))
    throw py::type_error("not a tile.kernel: " +
                         toString(mlirIdentifierStr(mlirOperationGetName(o.get()))));
}

std::string print(MlirOperation op, bool debugInfo, bool generic) {
  std::string text;
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  mlirOpPrintingFlagsEnableDebugInfo(flags, debugInfo, /*prettyForm=*/false);
  if (generic)
    mlirOpPrintingFlagsPrintGenericOpForm(flags);
  mlirOperationPrintWithFlags(op, flags, appendTo, &text);
  mlirOpPrintingFlagsDestroy(flags);
  return text;
}

py::object counterexampleDict(TileTagCounterexample c) {
  if (tiletagCounterexampleIsNull(c))
    return py::none();
  py::dict out;
  py::list values;
  for (intptr_t i = 0, e = tiletagCounterexampleGetNumValues(c); i < e; ++i)
    values.append(py::make_tuple(
        toString(tiletagCounterexampleGetValueName(c, i)),
        tiletagCounterexampleGetValue(c, i)));
  out["values"] = values;
  py::list points;
  for (intptr_t i = 0, e = tiletagCounterexampleGetNumPoints(c); i < e; ++i) {
    TileTagCounterexamplePoint p = tiletagCounterexampleGetPoint(c, i);
    py::dict point;
    point["op"] = toString(tiletagPointGetOpName(p));
    point["location"] = toString(tiletagPointGetLocation(p));
    py::list loops;
    for (intptr_t l = 0, le = tiletagPointGetNumLoops(p); l < le; ++l)
      loops.append(py::make_tuple(toString(tiletagPointGetLoopName(p, l)),
                                  tiletagPointGetLoopValue(p, l)));
    point["loops"] = loops;
    py::list accesses;
    for (intptr_t a = 0, ae = tiletagPointGetNumAccesses(p); a < ae; ++a) {
      py::list index;
      for (intptr_t d = 0, de = tiletagPointGetAccessRank(p, a); d < de; ++d)
        index.append(tiletagPointGetAccessIndex(p, a, d));
      py::dict access;
      access["kind"] = toString(tiletagPointGetAccessKind(p, a));
      access["index"] = index;
      access["buffer"] = toString(tiletagPointGetAccessBuffer(p, a));
      accesses.append(access);
    }
    point["accesses"] = accesses;
    points.append(point);
  }
  out["points"] = points;
  out["replay"] = toString(tiletagCounterexampleGetReplay(c));
  out["replay_flags"] = toString(tiletagCounterexampleGetReplayFlags(c));
  return out;
}

py::dict verdictDict(TileTagVerdict v) {
  py::dict out;
  out["kernel"] = toString(tiletagVerdictGetKernelName(v));
  out["proved"] = tiletagVerdictIsProved(v);
  out["queries"] = tiletagVerdictGetNumQueries(v);
  out["resources"] = tiletagVerdictGetResources(v);
  out["largest_query"] = tiletagVerdictGetLargestQuery(v);
  out["milliseconds"] = tiletagVerdictGetMilliseconds(v);
  static const char *statuses[] = {"proved", "failed", "unknown"};
  py::list obligations;
  for (intptr_t i = 0, e = tiletagVerdictGetNumObligations(v); i < e; ++i) {
    TileTagObligation o = tiletagVerdictGetObligation(v, i);
    py::dict d;
    d["checker"] = toString(tiletagObligationGetChecker(o));
    d["status"] = statuses[tiletagObligationGetStatus(o)];
    d["what"] = toString(tiletagObligationGetWhat(o));
    d["location"] = toString(tiletagObligationGetLocation(o));
    d["resources"] = tiletagObligationGetResources(o);
    py::list notes;
    for (intptr_t n = 0, ne = tiletagObligationGetNumNotes(o); n < ne; ++n)
      notes.append(toString(tiletagObligationGetNote(o, n)));
    d["notes"] = notes;
    d["counterexample"] =
        counterexampleDict(tiletagObligationGetCounterexample(o));
    obligations.append(d);
  }
  out["obligations"] = obligations;
  return out;
}

std::vector<TileTagNamedInt> namedInts(const std::vector<std::string> &names,
                                       const std::vector<int64_t> &values) {
  std::vector<TileTagNamedInt> out;
  for (size_t i = 0; i < names.size(); ++i)
    out.push_back({ref(names[i]), values[i]});
  return out;
}

py::object estimate(const Operation &o, const std::string &chip,
                    const std::vector<std::string> &sizeNames,
                    const std::vector<int64_t> &sizeValues,
                    const std::vector<std::string> &scalarNames,
                    const std::vector<int64_t> &scalarValues,
                    int64_t registers, const std::string &calibration) {
  requireKernel(o);
  std::vector<TileTagNamedInt> sizes = namedInts(sizeNames, sizeValues);
  std::vector<TileTagNamedInt> scalars = namedInts(scalarNames, scalarValues);
  TileTagEstimate e = tiletagEstimateKernel(
      o.get(), ref(chip), sizes.size(), sizes.data(), scalars.size(),
      scalars.data(), registers, ref(calibration));
  if (tiletagEstimateIsNull(e))
    return py::none();
  py::dict d;
  d["time_us"] = tiletagEstimateGetMicroseconds(e);
  d["tflops"] = tiletagEstimateGetTFlops(e);
  d["flops"] = tiletagEstimateGetFlops(e);
  d["bytes_loaded"] = tiletagEstimateGetBytesLoaded(e);
  d["bytes_stored"] = tiletagEstimateGetBytesStored(e);
  d["dram_bytes"] = tiletagEstimateGetDramBytes(e);
  d["programs"] = tiletagEstimateGetPrograms(e);
  d["ctas_per_sm"] = tiletagEstimateGetCtasPerSM(e);
  d["threads_per_cta"] = tiletagEstimateGetThreadsPerCTA(e);
  d["registers_per_thread"] = tiletagEstimateGetRegistersPerThread(e);
  d["shared_bytes"] = tiletagEstimateGetSharedBytes(e);
  d["waves"] = tiletagEstimateGetWaves(e);
  d["bound_by"] = toString(tiletagEstimateGetBoundBy(e));
  py::list assumptions;
  for (intptr_t i = 0, n = tiletagEstimateGetNumAssumptions(e); i < n; ++i)
    assumptions.append(toString(tiletagEstimateGetAssumption(e, i)));
  d["assumptions"] = assumptions;
  tiletagEstimateDestroy(e);
  return d;
}

/// Runs the oracle on Python buffers (C-contiguous, writable, in the host
/// form of each operand's element type: the package checks that).
py::dict oracleRun(const Operation &o, const std::vector<std::string> &names,
                   const std::vector<py::buffer> &arrays,
                   const std::vector<std::string> &scalarNames,
                   const std::vector<double> &scalarValues,
                   const std::vector<std::string> &sizeNames,
                   const std::vector<int64_t> &sizeValues, bool check) {
  requireKernel(o);
  std::vector<py::buffer_info> infos;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<TileTagBuffer> buffers;
  for (size_t i = 0; i < arrays.size(); ++i) {
    infos.push_back(arrays[i].request(/*writable=*/true));
    shapes.emplace_back(infos.back().shape.begin(), infos.back().shape.end());
  }
  for (size_t i = 0; i < arrays.size(); ++i)
    buffers.push_back({ref(names[i]), infos[i].ptr,
                       static_cast<intptr_t>(shapes[i].size()),
                       shapes[i].data()});
  std::vector<TileTagNamedDouble> scalars;
  for (size_t i = 0; i < scalarNames.size(); ++i)
    scalars.push_back({ref(scalarNames[i]), scalarValues[i]});
  std::vector<TileTagNamedInt> sizes = namedInts(sizeNames, sizeValues);
  TileTagOracleRun run;
  {
    py::gil_scoped_release release;
    run = tiletagOracleRun(o.get(), buffers.size(), buffers.data(),
                           scalars.size(), scalars.data(), sizes.size(),
                           sizes.data(), check);
  }
  static const char *statuses[] = {"success", "mismatch", "runtime-failure",
                                   "bad-input"};
  py::dict d;
  d["status"] = statuses[tiletagOracleRunGetStatus(run)];
  d["message"] = toString(tiletagOracleRunGetMessage(run));
  py::dict usedSizes;
  for (intptr_t i = 0, e = tiletagOracleRunGetNumSizes(run); i < e; ++i) {
    TileTagNamedInt s = tiletagOracleRunGetSize(run, i);
    usedSizes[py::str(toString(s.name))] = s.value;
  }
  d["sizes"] = usedSizes;
  d["programs"] = tiletagOracleRunGetPrograms(run);
  d["milliseconds"] = tiletagOracleRunGetMilliseconds(run);
  py::list checks;
  for (intptr_t i = 0, e = tiletagOracleRunGetNumChecks(run); i < e; ++i) {
    py::dict c;
    c["name"] = toString(tiletagOracleRunGetCheckName(run, i));
    c["matches"] = tiletagOracleRunGetCheckMatches(run, i);
    c["elements"] = tiletagOracleRunGetCheckElements(run, i);
    c["mismatches"] = tiletagOracleRunGetCheckMismatches(run, i);
    c["worst"] = tiletagOracleRunGetCheckWorst(run, i);
    c["got"] = tiletagOracleRunGetCheckGot(run, i);
    c["expected"] = tiletagOracleRunGetCheckExpected(run, i);
    c["max_abs_diff"] = tiletagOracleRunGetCheckMaxAbsDiff(run, i);
    c["rtol"] = tiletagOracleRunGetCheckRtol(run, i);
    c["atol"] = tiletagOracleRunGetCheckAtol(run, i);
    checks.append(c);
  }
  d["checks"] = checks;
  tiletagOracleRunDestroy(run);
  return d;
}

} // namespace

PYBIND11_MODULE(_tiletag, m) {
  m.doc() = "TileTag's C API for the tiletag package (use tiletag, not this)";
  m.def("version", [] { return toString(tiletagGetVersion()); });

  py::class_<Context, std::shared_ptr<Context>>(m, "Context")
      .def(py::init<>())
      .def("take_diagnostics", &Context::take,
           "The diagnostics emitted since the last call, as dicts")
      .def(
          "parse",
          [](std::shared_ptr<Context> self, const std::string &text,
             const std::string &filename) -> py::object {
            MlirModule module =
                tiletagModuleCreateParse(self->ctx, ref(text), ref(filename));
            if (mlirModuleIsNull(module))
              return py::none();
            return py::cast(std::make_shared<Module>(self, module));
          },
          py::arg("text"), py::arg("filename") = "<string>")
      .def("parse_file",
           [](std::shared_ptr<Context> self,
              const std::string &path) -> py::object {
             MlirModule module =
                 mlirModuleCreateParseFromFile(self->ctx, ref(path));
             if (mlirModuleIsNull(module))
               return py::none();
             return py::cast(std::make_shared<Module>(self, module));
           });

  py::class_<Module, std::shared_ptr<Module>>(m, "Module")
      .def_property_readonly("context",
                             [](Module &self) { return self.context; })
      .def_property_readonly(
          "operation",
          [](std::shared_ptr<Module> self) {
            return operationOf(self, mlirModuleGetOperation(self->module));
          })
      .def("kernels",
           [](std::shared_ptr<Module> self) {
             std::vector<Operation> out;
             for (intptr_t i = 0, e = tiletagModuleGetNumKernels(self->module);
                  i < e; ++i)
               out.push_back(operationOf(self, tiletagModuleGetKernel(self->module, i)));
             return out;
           })
      .def("clone",
           [](std::shared_ptr<Module> self) {
             MlirOperation copy =
                 mlirOperationClone(mlirModuleGetOperation(self->module));
             return std::make_shared<Module>(self->context,
                                             mlirModuleFromOperation(copy));
           })
      .def("run_pipeline",
           [](Module &self, const std::string &pipeline) {
             ++self.generation;
             MlirPassManager pm = mlirPassManagerCreate(self.context->ctx);
             std::string error;
             MlirLogicalResult parsed = mlirParsePassPipeline(
                 mlirPassManagerGetAsOpPassManager(pm), ref(pipeline),
                 appendTo, &error);
             if (mlirLogicalResultIsFailure(parsed)) {
               mlirPassManagerDestroy(pm);
               throw py::value_error("bad pass pipeline '" + pipeline +
                                     "': " + error);
             }
             MlirLogicalResult result = mlirPassManagerRunOnOp(
                 pm, mlirModuleGetOperation(self.module));
             mlirPassManagerDestroy(pm);
             return mlirLogicalResultIsSuccess(result);
           })
      .def("apply_transform",
           [](Module &self, Module &script) {
             if (script.context != self.context)
               throw py::value_error(
                   "the script must be parsed in the module's context");
             ++self.generation;
             return mlirLogicalResultIsSuccess(
                 tiletagApplyTransformScript(self.module, script.module));
           })
      .def("report_fallbacks",
           [](Module &self, const std::string &chip) {
             return mlirLogicalResultIsSuccess(
                 tiletagReportFallbacks(self.module, ref(chip)));
           })
      .def("compile",
           [](Module &self, const std::string &chip, const std::string &format,
              bool allowUnverified) -> py::object {
             std::vector<std::string> binaries;
             auto collect = [](MlirStringRef s, void *out) {
               static_cast<std::vector<std::string> *>(out)->push_back(
                   toString(s));
             };
             // gfx chips are AMD's; the others NVIDIA's.
             auto compile = chip.rfind("gfx", 0) == 0
                                ? tiletagCompileROCM
                                : tiletagCompileCUDA;
             if (mlirLogicalResultIsFailure(
                     compile(self.module, ref(chip), ref(format),
                             allowUnverified, collect, &binaries)))
               return py::none();
             py::list out;
             for (const std::string &b : binaries)
               out.append(py::bytes(b));
             return out;
           });

  py::class_<Operation>(m, "Operation")
      .def_property_readonly("name",
                             [](const Operation &o) {
                               return toString(mlirIdentifierStr(
                                   mlirOperationGetName(o.get())));
                             })
      .def_property_readonly("location",
                             [](const Operation &o) {
                               return locationDict(
                                   mlirOperationGetLocation(o.get()));
                             })
      .def("print",
           [](const Operation &o, bool debugInfo, bool generic) {
             return print(o.get(), debugInfo, generic);
           },
           py::arg("debug_info") = false, py::arg("generic") = false)
      .def("regions",
           [](const Operation &o) {
             // Regions as lists of blocks as lists of operations.
             std::vector<std::vector<std::vector<Operation>>> regions;
             for (intptr_t r = 0, re = mlirOperationGetNumRegions(o.get());
                  r < re; ++r) {
               auto &blocks = regions.emplace_back();
               for (MlirBlock b =
                        mlirRegionGetFirstBlock(mlirOperationGetRegion(o.get(), r));
                    !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b)) {
                 auto &ops = blocks.emplace_back();
                 for (MlirOperation child = mlirBlockGetFirstOperation(b);
                      !mlirOperationIsNull(child);
                      child = mlirOperationGetNextInBlock(child))
                   ops.push_back(operationOf(o.owner, child));
               }
             }
             return regions;
           })
      .def("attribute",
           [](const Operation &o, const std::string &name) -> py::object {
             MlirAttribute a =
                 mlirOperationGetAttributeByName(o.get(), ref(name));
             if (mlirAttributeIsNull(a))
               return py::none();
             std::string text;
             mlirAttributePrint(a, appendTo, &text);
             return py::str(text);
           })
      .def_property_readonly("is_kernel",
                             [](const Operation &o) {
                               return tiletagOperationIsAKernel(o.get());
                             })
      .def("kernel_info",
           [](const Operation &o) {
             requireKernel(o);
             py::dict d;
             d["name"] = toString(tiletagKernelGetName(o.get()));
             d["grid_rank"] = tiletagKernelGetGridRank(o.get());
             py::list operands;
             for (intptr_t i = 0, e = tiletagKernelGetNumOperands(o.get()); i < e;
                  ++i) {
               std::string type;
               mlirTypePrint(tiletagKernelGetOperandType(o.get(), i), appendTo,
                             &type);
               operands.append(py::make_tuple(
                   toString(tiletagKernelGetOperandName(o.get(), i)), type));
             }
             d["operands"] = operands;
             d["contract"] = toString(tiletagKernelGetContract(o.get()));
             d["has_launch"] = tiletagKernelHasLaunch(o.get());
             py::list sizes;
             for (intptr_t i = 0, e = tiletagKernelGetNumSizes(o.get()); i < e;
                  ++i)
               sizes.append(
                   py::make_tuple(toString(tiletagKernelGetSizeName(o.get(), i)),
                                  tiletagKernelGetSizeDefault(o.get(), i)));
             d["sizes"] = sizes;
             d["check"] = toString(tiletagKernelGetCheck(o.get()));
             py::list then;
             for (intptr_t i = 0, e = tiletagKernelGetNumThen(o.get()); i < e;
                  ++i)
               then.append(toString(tiletagKernelGetThen(o.get(), i)));
             d["then"] = then;
             d["tag_proof"] = tiletagKernelHasCurrentTagProof(o.get());
             d["schedule_proof"] = tiletagKernelHasCurrentScheduleProof(o.get());
             return d;
           })
      .def(
          "check",
          [](const Operation &o, bool tags, bool schedule, bool stamp,
             uint64_t resourceLimit,
             const std::string &verdictCache) -> py::object {
            requireKernel(o);
            TileTagCheckOptions options = tiletagCheckOptionsGetDefault();
            options.tags = tags;
            options.schedule = schedule;
            options.stamp = stamp;
            options.resourceLimit = resourceLimit;
            options.verdictCacheDir = ref(verdictCache);
            TileTagVerdict v;
            {
              py::gil_scoped_release release;
              v = tiletagCheckKernel(o.get(), options);
            }
            if (tiletagVerdictIsNull(v))
              return py::none();
            py::dict d = verdictDict(v);
            tiletagVerdictDestroy(v);
            return d;
          },
          py::arg("tags") = true, py::arg("schedule") = true,
          py::arg("stamp") = true, py::arg("resource_limit") = 0,
          py::arg("verdict_cache") = "")
      .def("estimate", &estimate)
      .def("oracle_run", &oracleRun);
}
