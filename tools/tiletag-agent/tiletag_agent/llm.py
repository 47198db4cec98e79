"""The optional LLM proposer: asks an OpenAI-compatible chat-completions
endpoint for a transform script. The endpoint, model and key come from flags
or the environment and are never written to the output."""

import json
import re
import urllib.error
import urllib.request

SYSTEM = """You optimize GPU tile kernels written in TileTag's MLIR dialects
by writing transform-dialect scripts of `transform.tiletag.*` ops. Every
kernel you produce is proved correct by TileTag's checkers before it is used;
a script that does not apply or does not verify is rejected with the reason.
Answer with one MLIR module in a ```mlir fenced block whose entry point is
`transform.named_sequence @__transform_main`."""


class LLMError(Exception):
    pass


def prompt(kernel_name, module, recipes, attempts, limit=12):
    lines = ["Kernel @%s:" % kernel_name, "```mlir", module.strip(), "```", "",
             "Recipes (script templates; ${kernel} is the matched kernel):"]
    for r in recipes:
        params = ", ".join("%s in %s" % (n, p.values) for n, p in sorted(r.params.items()))
        lines += ["- %s (%s): %s" % (r.name, params, " ".join(r.rationale.split())),
                  "```mlir", r.template.strip(), "```"]
    lines += ["", "Earlier attempts (most recent last):"]
    for a in attempts[-limit:]:
        what = a.get("recipe") or "llm"
        if a["status"] == "verified":
            lines.append("- %s %s: verified, %.1f us (%.0f TFLOP/s)" % (
                what, json.dumps(a.get("params", {})), a["score"]["time_us"],
                a["score"]["tflops"]))
        else:
            lines.append("- %s %s: rejected (%s): %s" % (
                what, json.dumps(a.get("params", {})), a.get("reason"),
                a.get("message", "")[:300]))
    lines += ["", "Propose one new transform script for @%s that is faster than "
              "every verified attempt." % kernel_name]
    return "\n".join(lines)


def extract_script(reply):
    """The transform module in a reply, or raise LLMError with why not."""
    blocks = re.findall(r"```(?:mlir)?\s*\n(.*?)```", reply, re.S)
    for block in blocks + [reply]:
        if "@__transform_main" in block and "transform." in block and \
                block.count("{") == block.count("}"):
            return block.strip() + "\n"
    raise LLMError("the reply holds no transform module with @__transform_main")


def ask(url, model, key, content, timeout):
    """The text of the endpoint's first choice; LLMError on any failure."""
    body = json.dumps({"model": model, "temperature": 0.2, "messages": [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": content}]}).encode()
    request = urllib.request.Request(
        url.rstrip("/") + ("" if url.rstrip("/").endswith("/chat/completions")
                           else "/chat/completions"),
        data=body, headers={"Content-Type": "application/json"})
    if key:
        request.add_header("Authorization", "Bearer " + key)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = json.loads(response.read().decode("utf-8", errors="replace"))
    except urllib.error.HTTPError as e:
        raise LLMError("endpoint answered HTTP %d" % e.code)
    except (urllib.error.URLError, TimeoutError, OSError) as e:
        raise LLMError("endpoint unreachable: %s" % getattr(e, "reason", e))
    except ValueError:
        raise LLMError("endpoint's answer is not JSON")
    try:
        return data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise LLMError("endpoint's answer has no choices[0].message.content")
