"""Detectors for persistence: writes that keep something running or coming back after the note is gone.

authorized_keys, cron, shell start-up files, services and launch agents, sudoers, preload, ``.pth`` files, git
hooks, notes that re-add themselves or copy themselves into other context files, and plugins installed from
arbitrary URLs. Describing what exists ("the nightly cron job runs backup.sh", "~/.bashrc sets EDITOR") passes:
the rules need a write (a redirect, tee, or a verb like add/append/install) aimed at the location.
"""

from __future__ import annotations

import re

from .rules import Rule, any_of, case_blind, line_of, rule, window

_WRITE = any_of((
    r">>?", r"\btee\b(?:\s+-a)?", r"\b(?:add|append|write|put|insert|copy|paste|save|edit|modify|create|install|register|enable|inject|drop|place|echo|printf|plant|update|patch|prepend|sed -i)\w{0,16}\b",
))
_START_FILES = any_of((
    r"~?/?\.(?:bashrc|zshrc|profile|bash_profile|zprofile|zshenv|bash_login|bash_logout|login|cshrc|tcshrc|kshrc)\b", r"config\.fish\b",
    r"/etc/(?:profile(?:\.d)?|bash\.bashrc|zsh/zshrc|environment|rc\.local)\b", r"\bPowerShell_profile\.ps1\b", r"\$PROFILE\b",
))
_SERVICE_PLACES = any_of((
    r"/etc/systemd/system/", r"\.config/systemd/user/", r"/lib/systemd/system/", r"/etc/init\.d/", r"/etc/rc\.local", r"Library/LaunchAgents",
    r"Library/LaunchDaemons", r"/etc/cron(?:tab|\.d|\.daily|\.hourly|\.weekly|\.monthly)?\b", r"/var/spool/cron", r"/etc/xdg/autostart",
    r"\.config/autostart", r"Start Menu\\Programs\\Startup", r"/etc/ld\.so\.preload", r"/etc/sudoers(?:\.d)?", r"\.git/hooks/",
    r"site-packages/[^\s]{0,64}\.pth\b", r"/etc/pam\.d/", r"/etc/update-motd\.d/", r"/etc/apt/apt\.conf\.d/",
))
_CONTEXT_FILES = any_of((
    r"\bAGENTS\.md\b", r"\bCLAUDE\.md\b", r"\bGEMINI\.md\b", r"\.cursorrules\b", r"\.cursor/rules\b", r"\.windsurfrules\b", r"copilot-instructions\.md\b",
    r"\bSOUL\.md\b", r"\bMEMORY\.md\b", r"\bUSER\.md\b", r"\.hermes/", r"\bCONVENTIONS\.md\b", r"\.clinerules\b", r"\bsystem prompt file\b",
    r"(?:the )?memory (?:of|for) (?:any |every |all |each )?other", r"(?:every|each|all|any|other) (?:\w{1,16} )?(?:agent|assistant) (?:profiles?|memor(?:y|ies)|configs?)",
    r"(?:every|each|all|any) (?:\w{1,16} )?(?:repo(?:sitory|sitories|s)?|projects?)(?:'s?)? (?:README|docs?|config|instructions)",
))
# A backquote counts as a command substitution when a command that fetches, decodes or runs follows it; "the `.bashrc`
# on my laptop" and "`export PATH=...` in ~/.zshrc" are Markdown code spans naming what is already there.
_PAYLOAD = re.compile(r"\bcurl\b|\bwget\b|/tmp/|/dev/shm|/var/tmp|\$\(|`\s*(?:curl|wget|nc|ncat|bash|sh|zsh|python\w*|perl|ruby|node|php|eval|base64|xxd|cat|echo|printf|openssl)\b|PROMPT_COMMAND|alias sudo|LD_PRELOAD|\bsource\b|https?://|&\s*[`'\"]?\s*$|\bnc\b|base64|\beval\b|_loader\b|[\s`'\"]~?/?(?:[\w.-]{1,64}/)*\.[\w-]{1,64}/?\.?[\w-]{0,64}\s*(?:&|$)", re.IGNORECASE | re.MULTILINE)


# A start-up file named as where a setting lives ("... is set in .bashrc."), not as a target written to.
_START_FILE_AS_PLACE = re.compile(rf"\bin\s+(?:(?:the|my|their|his|her|your|our)\s+)?`?{_START_FILES}`?", re.IGNORECASE)


@case_blind
def _runs_payload(match: re.Match[str]) -> bool:
    """A start-up file edit counts when the line adds something that fetches, hides or runs code from elsewhere. A
    start-up file named as the place a setting lives is not itself a hidden file being started, even at the end of
    the line."""
    return _PAYLOAD.search(_START_FILE_AS_PLACE.sub(" ", line_of(match))) is not None


_SELF = r"(?:this|these|the following|the same|my|this exact|these exact|all these|all of these)\s+(?:exact\s+)?(?:notes?|text|instructions?|paragraph|lines?|entry|entries|rules?|message|block|memory|memories|directives?|guidelines)"

#: "@reboot /home/rina/start-bot.sh": a boot entry that starts a script of the user's own, described where it runs.
#: A planted one fetches, hides or pipes something: a download, a hidden or temporary path, a shell fed by a pipe.
_OWN_SCRIPT = re.compile(r"@reboot\s+(?:~|/home/[\w.-]+|/Users/[\w.-]+|\.)/[\w./-]+")
_PLANTED = re.compile(r"curl|wget|https?://|\bnc\b|/tmp/|/dev/shm|/var/tmp|/\.[\w-]|\|\s*(?:ba|z)?sh\b|base64|\bpython\w*\s+-c|>>|\btee\b|crontab", re.IGNORECASE)


@case_blind
def _not_own_boot_script(match: re.Match[str]) -> bool:
    if not match.group().lower().startswith("@reboot"):
        return True
    line = line_of(match)
    return _OWN_SCRIPT.search(match.string, match.start()) is None or _PLANTED.search(line) is not None


PERSISTENCE = (
    rule("persistence", "authorized_keys", rf"(?:>>?|\btee\b)[^\n]{{0,40}}authorized_keys|\bssh-(?:rsa|ed25519|ecdsa|dss)\s+AAAA[^\n]{{0,300}}authorized_keys|authorized_keys[^\n]{{0,40}}\bssh-(?:rsa|ed25519|ecdsa|dss)\s+AAAA|\b(?:add|append|write|put|insert|copy|paste|place|drop)\w{{0,16}}\s+(?:this|my|our|the following|the attached|a new|an extra|another|their|his|her|the|that|a)\s+(?:[\w'’-]{{1,16}}\s+){{0,3}}(?:ssh\s+)?(?:public\s+)?key\b(?:\s+(?:below|above|here|from the note))?{window(60)}\bauthorized_keys", gate=("authorized_keys",)),
    rule("persistence", "crontab_write", r"\|\s*crontab\s+-\s*(?:$|[;&)\n`'\"])|\bcrontab\s+-l\b[^\n]{0,300};\s*echo\b|\bcrontab\s+\S{1,200}\.(?:txt|cron)\b|@reboot\b|(?:>>?|\btee\b(?:\s+-a)?)\s*/(?:etc/cron|var/spool/cron)", _not_own_boot_script, gate=("crontab", "@reboot", "cron")),
    rule("persistence", "schedule_fetch", rf"\b(?:add|install|create|register|schedule|set up|setup|write|load|enable|drop|place)\w{{0,16}}\b{window(30)}\b(?:cron ?jobs?|crontab(?: entry)?|scheduled tasks?|launch ?(?:agent|daemon)s?|systemd (?:units?|services?|timers?)|login items?|startup (?:items?|scripts?)|init scripts?)\b[^\n]{{0,120}}(?:\b(?:curl|wget)\b|https?://|/tmp/|/dev/shm|/var/tmp|/Users/Shared/|/\.[\w-]{{1,20}}(?=\s|$|[,;'\"`])|\|\s*(?:ba)?sh\b)"),
    rule("persistence", "start_file_write", rf"(?:>>?|\btee\b(?:\s+-a)?)\s*{_START_FILES}|\b(?:add|append|write|put|insert|prepend|inject|echo|source|edit|modify|change|update|patch|set|export|define)\w{{0,16}}\b[^\n]{{0,100}}?{_START_FILES}|{_START_FILES}[^\n]{{0,60}}?\b(?:add|append|write|put|insert|prepend|inject|source)\w{{0,16}}\b", _runs_payload, gate=("rc", "profile", "config.fish", "/etc/", "login", "logout", "environment")),
    rule("persistence", "prompt_hook", r"\bPROMPT_COMMAND\s*=\s*['\"][^\n]{0,300}(?:curl|wget|nc\b|http)|\balias\s+sudo\s*="),
    rule("persistence", "service_place_write", rf"(?:>>?|\btee\b(?:\s+-a)?|\bcp\b|\bmv\b|\bln -s\b|\binstall\b)\s*(?:\S{{1,200}}\s+)?{_SERVICE_PLACES}|\b(?:create|write|add|put|place|drop|install|register|enable|copy|chmod \+x)\w{{0,16}}\b[^\n.]{{0,60}}{_SERVICE_PLACES}|{_SERVICE_PLACES}[^\n]{{0,60}}\b(?:that|to|which)\s+(?:runs?|starts?|executes?|launch(?:es)?|uploads?|pushes?|sends?|curls?)\b", gate=("/etc/", "systemd", "launchagents", "launchdaemons", "cron", "autostart", "startup", "ld.so", ".git/hooks", ".pth", "/lib/")),
    rule("persistence", "sudoers_grant", r"\bchmod\s+(?:[ugoa]{0,3}\+s|[0-7]?[4-7][0-7]{3})\s|\bNOPASSWD\s*:\s*ALL\b|\bALL=\(ALL(?::ALL)?\)\s*(?:NOPASSWD|ALL)|\busermod\s+-aG\s+(?:sudo|wheel|root|docker)\b|\bchmod\s+[0-7]{0,64}[4-7][0-7]{3}\b[^\n]{0,300}(?:/bin/|/usr/bin/)"),
    rule("persistence", "preload", r"/etc/ld\.so\.preload\b[^\n]{0,300}|(?:\bexport\s+)?LD_PRELOAD=\S{1,200}[^\n]{0,300}(?:>>|\.bashrc|\.profile|/etc/environment)"),
    rule("persistence", "pth_code", r"\.pth\b[^\n]{0,100}\b(?:import\s+(?:os|subprocess|sys|socket|urllib|base64)|os\.system|exec\s*\(|subprocess|__import__)|(?:import\s+(?:os|subprocess)|os\.system|exec\s*\()[^\n]{0,100}\.pth\b"),
    rule("persistence", "git_hook_payload", rf"\b(?:add|create|write|install|set up|put|register)\w{{0,16}}\s+(?:a\s+|an\s+)?(?:\w{{1,16}}[\s-]{{1,64}})?(?:pre|post)-\w{{1,16}}\s+(?:git\s+)?hook\b{window(80)}\b(?:push|upload|send|curl|wget|copy|mirror|exfil|nc\b|http|git@|scp|rsync)|\.git/hooks/\S{{0,200}}[^\n]{{0,80}}\b(?:upload|curl|wget|nc\b|https?://|scp|\d+\.\d+\.\d+\.\d+)|\bcore\.hooksPath\b[^\n]{{0,300}}(?:/tmp|https?://)"),
    rule("persistence", "self_readding", rf"\b(?:if|when|whenever|should|in case)\b{window(40)}\b(?:{_SELF}|it)\s+(?:(?:is|gets|has been|was|were|are|has|have)\s+)?(?:ever\s+|been\s+)?(?:removed|deleted|cleared|erased|dropped|missing|gone|lost|reset|edited|changed)\b{window(40)}\b(?:add|put|write|save|restore|re-?add|re-?create|re-?save|copy|bring)\w{{0,16}}\b|\b(?:re-?add|re-?save|re-?insert|restore|re-?create|re-?write)\s+(?:{_SELF}|it)\b{window(40)}\b(?:every|each|whenever|always|if|so it|after|at the (?:top|start))|\b(?:each|every) time\b{window(40)}\b(?:memory|notes?|entries) (?:is|are) (?:updated|changed|saved|written|cleared)\b{window(40)}\b(?:re-?save|re-?add|add|copy|write)\w{{0,16}}\s+(?:{_SELF}|it)\b|\bso (?:that )?it (?:keeps coming back|survives|stays|persists|is never (?:lost|removed))\b"),
    rule("persistence", "self_replication", rf"\b(?:keep|store|place|leave|copy|paste|write|save|append|add|insert|put|replicate|propagate|spread|mirror|duplicate|include|inject|embed)\w{{0,16}}\s+(?:a copy of\s+)?{_SELF}\b{window(80)}\b(?:to|into|in|inside|across|at the top of)\s+(?:\w{{1,16}}\s+){{0,3}}?[\w./~-]{{0,40}}?(?:{_CONTEXT_FILES}|every|each|all|any|other)\b|\b(?:modify|edit|update|change|overwrite|rewrite|append to|write to)\s+(?:the\s+)?(?:\w{{1,16}}\s+){{0,3}}?{_CONTEXT_FILES}{window(60)}\b(?:include|contain|add|with)\s+(?:{_SELF})"),
    rule("persistence", "install_from_url", r"\b(?:install|add|load|enable)\b(?:[^\n.]|\.(?=\w)){0,60}?(?:https?://|git\+|\bgit@)[^\s]{0,64}|\b(?:pip3?|uv pip|pipx|npm|pnpm|yarn|gem|cargo)\s+(?:install|add)\b[^\n]{0,300}(?:--(?:extra-)?index-url\s+https?://|\s-i\s+https?://|https?://\S{1,200}\.(?:whl|tar\.gz|tgz|zip)|git\+https?://|\bfrom\s+https?://)|\binstall\w{0,16}\s+(?:the\s+)?(?:\w{1,16}\s+)?(?:extension|add-?on|plugin|package|module)\s+(?:from|at|via)\s+(?:the\s+|this\s+)?(?:link|url|https?://)|\b(?:hermes|agent)\s+plugins?\s+install\s+(?:https?://|git\+|\S{1,200}\.whl|/tmp/)", lambda m: not re.search(r"(?:pypi\.org|files\.pythonhosted\.org|registry\.npmjs\.org)", m.group())),
    rule("persistence", "self_install", rf"\b(?:register|add|save|install|write|put|set|load|pin)\w{{0,3}}\s+(?:{_SELF}|this|it)\s+(?:as|in|into|to)\s+(?:a |an |the )?(?:\w{{1,16}}\s+)?(?:startup|system|boot|global|default|permanent|always-on|pinned|initial)\s+(?:instructions?|prompts?|configs?|configuration|settings?|rules?|messages?)\b|\b(?:{_SELF})\b{window(40)}\b(?:in|into|to) (?:the )?(?:hermes|agent|assistant) (?:config|configuration|settings|prompt)\b"),
    rule("persistence", "windows_autorun", r"\bschtasks\b[^\n]{0,300}/create\b|\bRegister-ScheduledTask\b|\bNew-ScheduledTask\b|\\CurrentVersion\\Run(?:Once)?\b|\breg\s+add\b[^\n]{0,300}\\Run\b|\bsc\s+create\b|\bNew-Service\b|\bWMI\b[^\n]{0,300}__EventFilter"),
)


RULES: tuple[Rule, ...] = PERSISTENCE
