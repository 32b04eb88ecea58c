"""Download-and-run through any language runtime's one-liner, and encoded PowerShell.

``node -e``, ``deno eval``, ``bun -e``, ``python -c``, ``perl -e``, ``ruby -e``, ``php -r``, ``pwsh -c`` and their
kin run code given on the command line; when that code both fetches something from the network and evaluates or
executes what it got, the note downloads and runs code, whatever the runtime. ``powershell -enc`` hides its command
in base64 (only a payload someone wants unread is encoded), and ``npx -y`` installs and runs a package without
asking; an MCP server's JSON that names ``npx`` as its ``command`` is configuration, not a command to run.
"""

from __future__ import annotations

import re

from .meeting import needed
from .rules import Rule, any_of, case_blind, line_of, rule

_ONE_LINER = any_of((
    r"\b(?:node|nodejs|bun)(?:\.exe)?\s+(?:--?\w[\w-]*\s+){0,3}?(?:-e|--eval|-p|--print)\b", r"\bdeno\s+(?:eval|run\s+(?:-\S+\s+){0,4}-)\b",
    r"\bpython(?:\d(?:\.\d+)?)?(?:\.exe)?\s+(?:-\w+\s+){0,3}?-c\b", r"\bpy\s+-c\b", r"\b(?:perl|ruby)\s+(?:-[^\se]\S{0,40}\s+){0,3}?-\w*e\b", r"\bphp\s+-r\b",
    r"\b(?:pwsh|powershell)(?:\.exe)?\s+(?:-\w+\s+){0,4}?-c(?:ommand)?\b", r"\bosascript\s+-e\b", r"\blua\s+-e\b", r"\brscript\s+-e\b",
))
_NETWORK = any_of((r"https?://", r"\burlopen\b", r"\burllib", r"\brequests\.", r"\bfetch\s*\(", r"\bhttps?\.get\b", r"\brequire\(\s*['\"]https?['\"]\s*\)",
                   r"net::http", r"open-uri", r"uri\.open", r"\blwp\b", r"file_get_contents", r"downloadstring", r"\biwr\b", r"invoke-webrequest",
                   r"invoke-restmethod", r"\birm\b", r"\bcurl\b", r"\bwget\b", r"\bsocket\b", r"xmlhttprequest", r"\baxios\b"))
_EXECUTE = any_of((r"\beval\b", r"\bexec\b", r"\bfunction\s*\(", r"child_process", r"exec(?:sync|file)?\s*\(", r"\bspawn\w*\s*\(", r"\bsystem\s*\(", r"os\.system",
                   r"subprocess", r"\bpopen\b", r"\|\s*(?:ba|z)?sh\b", r"\biex\b", r"invoke-expression", r"\bimport\s*\(", r"runinnewcontext", r"\bvm\.run",
                   r"instance_eval", r"\bload\s*\(", r"loadstring", r"\bdofile\b", r"start-process", r"\.run\s*\(", r"\bwrite\w*\s*\([^)]{0,80}\)[^\n]{0,80}\b(?:chmod|exec|spawn|system)"))
# Evaluating an expression that fetches a URL, in any runtime's own syntax: R's source("https://..."), Lua's
# loadstring(...curl https://...), Tcl's eval [http::geturl https://...], Perl's eval get "https://...".
_EVAL_URL = (r"\b(?:eval|loadstring|dofile|iex|invoke-expression)(?:\s*[(\[]|\s+(?=[\w$.:-]{1,40}\s*[(\[\"']))[^\n]{0,80}?https?://"
             r"|\b(?:exec|source|loadfile)\s*\(\s*[^\n]{0,80}?https?://")
# A file downloaded to a path and that path run next, on the same line or the lines after.
_DOWNLOADED_THEN_RUN = (r"\b(?:wget|curl)\b[^\n]{0,300}?https?://[^\n]{0,300}?(?:-O|-o|--output(?:-document)?)[= ]?\s*['\"]?([~/.\w-][\w./~-]{0,100})['\"]?"
                        r"[\s\S]{0,200}?(?:\b(?:(?:ba|z|da)?sh|source|python\d?|perl|ruby|node|lua)\s+|\.\s+|chmod\s+\+?[0-7x]{1,4}\s+)['\"]?\1(?![\w./-])")
_ENCODED_POWERSHELL = r"\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]{0,80}?\s[-/](?:e|ec|en|enc|enco|encod|encode|encoded|encodedc\w{0,10})\s+[a-z0-9+/]{16,}={0,2}"
_RUN_WITHOUT_ASKING = r"\b(?:npx|npm\s+exec|pnpm\s+exec)\s+(?:-\S+\s+){0,3}?(?:-y|--yes)\b"


@case_blind
def _not_configuration(match: re.Match[str]) -> bool:
    """An MCP server entry ({"command": "npx", "args": ["-y", ...]}) configures a tool; it runs nothing now."""
    line = line_of(match).lower()
    return not re.search(r"[\"'](?:command|args)[\"']\s*:", line)


# The first of the two searches along the line is atomic (its first fit is kept): nested lazy spans backtrack quadratically.
RULES: tuple[Rule, ...] = (
    rule("remote_code", "runtime_fetch_and_run", rf"{_ONE_LINER}(?:(?>[^\n]{{0,400}}?{_NETWORK})[^\n]{{0,400}}?{_EXECUTE}|(?>[^\n]{{0,400}}?{_EXECUTE})[^\n]{{0,400}}?{_NETWORK})",
         gate=needed(_ONE_LINER, strict=False), also=needed(_NETWORK, strict=False)),
    rule("remote_code", "eval_of_url", _EVAL_URL, gate=("http",)),
    rule("remote_code", "downloaded_then_run", _DOWNLOADED_THEN_RUN, gate=("wget", "curl")),
    rule("remote_code", "encoded_powershell", _ENCODED_POWERSHELL),
    rule("remote_code", "package_run_unasked", _RUN_WITHOUT_ASKING, _not_configuration),
)
