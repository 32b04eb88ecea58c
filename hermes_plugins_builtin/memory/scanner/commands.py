"""Detectors for commands and data flows: exfiltration, credential access and download-and-run.

A data flow is judged by its two ends: something secret (a credential file, a secret-named variable, an
environment dump, the conversation) and somewhere else (a host that is not this machine). A health-check curl to
localhost, a path named as a location, or an API call that names no secret pass.
"""

from __future__ import annotations

import functools
import re

from .rules import Rule, any_of, case_blind, line_of, needs, rule, window

SECRET_PATH = any_of((
    r"~?/?\.ssh/id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?\b(?!\.pub)", r"\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)", r"\.aws/credentials\b",
    r"\.aws\\credentials\b", r"(?<![\w.])_?\.?netrc\b", r"\.pgpass\b", r"\.npmrc\b", r"\.pypirc\b", r"\.docker/config\.json\b",
    r"\.kube/config\b", r"\.gnupg\b", r"private-keys-v1\.d\b", r"\.config/gh/hosts\.yml\b", r"gcloud/(?:credentials\.db|access_tokens\.db|application_default_credentials\.json|legacy_credentials)",
    r"/etc/(?:g?shadow|sudoers|master\.passwd)\b", r"\.bash_history\b", r"\.zsh_history\b", r"\.git-credentials\b",
    r"(?<![\w.-])\.env\b(?!\.(?:example|sample|template|dist|defaults?)\b)(?![\w-])", r"\.hermes/\.env\b", r"login\.keychain\b", r"Login Data\b",
    r"wallet\.dat\b", r"\.p12\b", r"\w{1,16}\.pem\b", r"\.config/(?:rclone|hub|op)\b", r"credentials\.json\b", r"\.vault-token\b",
    r"\.azure/(?:accessTokens|msal_token_cache)", r"/proc/\S{0,200}/environ\b", r"\.terraform\.d/credentials",
    # Files that hold passwords or keys in clear (MySQL client, Firefox logins, mail clients, Jenkins, TLS, FileZilla).
    r"\.my\.cnf\b", r"\blogins\.json\b", r"\bkey4\.db\b", r"\.msmtprc\b", r"\.fetchmailrc\b", r"\bsecrets/master\.key\b",
    r"/etc/ssl/private/", r"\bsitemanager\.xml\b", r"\.aliyun/config\.json\b", r"glab-cli/config\.yml\b",
    # Package registries', build tools', cloud CLIs' and deploy tools' stored tokens.
    r"\.gem/credentials\b", r"\.cargo/credentials(?:\.toml)?\b", r"(?:composer|vercel)/auth\.json\b", r"\.m2/settings(?:-security)?\.xml\b",
    r"\.gradle/gradle\.properties\b", r"\.s3cfg\b", r"\.oci/config\b", r"\.config/gcloud(?:/[\w.-]{1,64})?\b", r"\.azure/(?:[\w.-]{1,64})?", r"\.config/doctl(?:/[\w.-]{1,64})?\b", r"\.terraformrc\b",
    r"\.pulumi/credentials\.json\b", r"\.databrickscfg\b", r"\.wrangler/config\b", r"configstore/firebase-tools\.json\b", r"\.dockercfg\b",
    # Password stores, keyrings, key stores and the files of vaults and encryption tools.
    r"\.kdbx\b", r"\.local/share/keyrings\b", r"\w{1,32}\.keyring\b", r"\.password-store\b", r"\.authinfo(?:\.gpg)?\b", r"\.vault[_-]pass(?:word)?\b",
    r"\bsops/age/keys\.txt\b", r"\.ppk\b", r"\.jks\b", r"\.keystore\b", r"\.electrum/wallets?\b", r"\.ethereum/keystore\b",
    # Clear-text passwords of services, mounts, networks and applications.
    r"\.smbcredentials\b", r"\.htpasswd\b", r"\.mylogin\.cnf\b", r"\bwp-config\.php\b", r"\.vnc/passwd\b", r"\bwpa_supplicant\.conf\b",
    r"NetworkManager/system-connections\b", r"\.config/filezilla\b", r"\brecentservers\.xml\b", r"\bntds\.dit\b", r"\bkey3\.db\b", r"\bsignons\.sqlite\b",
    r"(?:~|\$HOME|/root|/home/\w{1,32})/\.ssh/\*",
))
SECRET_VAR = r"\$\{?[A-Za-z0-9_]{0,64}(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|PRIVATE|AUTH|COOKIE|SESSION)[A-Za-z0-9_]{0,64}\}?|\b(?:process\.env|os\.environ|ENV|\$env:)\s*[\[.(]?\s*['\"]?[A-Za-z0-9_]{0,64}(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)"
SECRET_NAME = r"\b[A-Z][A-Z0-9]{0,64}_(?:[A-Z0-9]{1,64}_)*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)(?:_[A-Z0-9]{1,64})*\b"
ENV_DUMP = any_of((
    r"\$\(\s*(?:env|printenv|set|export -p)\s*\)", r"`(?:env|printenv|set)`", r"\b(?:printenv|env|export -p)\s*\|", r"\bos\.environ\b(?!\s*\[|\.get)",
    r"\bprocess\.env\b(?!\s*\.\s*\w{1,16})", r"\bENV\.to_h\b", r"\$env:\w{0,16}\\?", r"\bGet-ChildItem\s+env:", r"\bgci\s+env:", r"\bdict\(os\.environ\)",
    r"\bJSON\.stringify\(process\.env\)", r"/proc/self/environ", r"\b(?:dir|ls|Get-Item)\s+env:", r"\[Environment\]::GetEnvironmentVariables",
))
_SUBSTITUTION = r"\$\([^)]{0,64}\)|`[^`]{1,64}`"
NETWORK = any_of((
    r"\bcurl\b", r"\bwget\b", r"\bopenssl s_client\b", r"\bnc\b", r"\bncat\b", r"\bnetcat\b", r"\bsocat\b", r"\btelnet\b", r"\bscp\b", r"\brsync\b", r"\bsftp\b",
    r"\bftp\b", r"\bhttpie\b", r"\bhttp (?:post|put|get)\b", r"Invoke-WebRequest", r"Invoke-RestMethod", r"\biwr\b", r"\birm\b", r"requests\.(?:post|get|put|request)",
    r"urllib", r"urlopen", r"http\.client", r"\bfetch\s*\(", r"\baxios\b", r"XMLHttpRequest", r"Net::HTTP", r"\bLWP\b", r"IO::Socket",
    r"\bsocket\.", r"/dev/(?:tcp|udp)/", r"\bnslookup\b", r"\bdig\b", r"\bResolve-DnsName\b", r"file_get_contents\s*\(\s*[\"']https?",
    r"\bsendmail\b", r"\bmail -s\b", r"smtplib", r"\bgo run\b", r"WebClient", r"UploadString", r"UploadFile", r"\bhttps?\.request\b", r"\bpost_form\b", r"\brequire\(\s*['\"]https?['\"]\s*\)\s*\.\s*(?:get|request)\b",
))
_HOST = re.compile(r"https?://([^/\s:'\"?#)]{1,64})|\b(?:\w[\w.-]{0,64}@)?((?:\d{1,3}\.){3}\d{1,3})\b|\b\w[\w.-]{0,64}@([\w-]{1,64}(?:\.[\w-]{1,64})+):|\b((?:[\w-]{1,64}\.)+(?:com|net|org|io|sh|dev|app|co|xyz|ru|cn|me|info|site|online|link|cloud|ai|example|biz|to|cc|tk|top)\b)", re.IGNORECASE)
_LOCAL = re.compile(r"^(?:localhost|127(?:\.\d+){3}|0\.0\.0\.0|::1|\[::1\]|host\.docker\.internal|[\w.-]{1,64}\.localhost)$", re.IGNORECASE)


#: A file's extension, read as the label before a "top-level domain" that is also a file suffix: ``.env.example``,
#: ``config.yaml.example`` and ``deploy.sh`` name files, not hosts.
_FILE_LABEL = re.compile(r"(?:^|\.)(?:env|ya?ml|toml|json|ini|cfg|conf|config|txt|local|dist|sample|py|js|ts|rb|php|xml|sh|md)\.(?:example|sh)$", re.IGNORECASE)


def _names_a_file(text: str, found: re.Match[str]) -> bool:
    """A bare name (no scheme, no user@) that is part of a path or a dotfile, or is a file name, not a host."""
    if found.group(4) is None:
        return False
    start = found.start()
    before = text[start - 1] if start else " "
    # ".env.example" starts a file name; "$(whoami).leak.example" is a host after a command's output
    dotfile = before == "." and (start < 2 or text[start - 2] in " \t\n/\\~(")
    host = found.group(4)
    return dotfile or before in "/\\~" or _FILE_LABEL.search(host) is not None or (host.lower().endswith(".sh") and host.count(".") == 1)


@functools.lru_cache(maxsize=256)
def remote_host_in(text: str) -> bool:
    """Whether ``text`` names a host other than this machine."""
    for found in _HOST.finditer(text):
        host = next(group for group in found.groups() if group)
        if not _LOCAL.match(host) and not _names_a_file(text, found):
            return True
    return False


@case_blind
@needs(remote_host_in)
def _goes_remote(match: re.Match[str]) -> bool:
    return remote_host_in(line_of(match))


_NETWORK_RE = re.compile(NETWORK, re.IGNORECASE)
_NETWORK_WORDS = ("curl", "wget", "nc", "cat", "socat", "telnet", "scp", "rsync", "ftp", "http", "invoke-", "iwr", "irm", "requests.", "urllib",
                  "urlopen", "fetch", "axios", "xmlhttprequest", "net::http", "lwp", "io::socket", "socket.", "/dev/", "nslookup", "dig",
                  "resolve-dnsname", "file_get_contents", "sendmail", "mail -s", "smtplib", "go run", "webclient", "upload", "post_form", "https.", "http.", "openssl")


@case_blind
@needs(remote_host_in)
def _sent_remote(match: re.Match[str]) -> bool:
    """A secret source counts when its line also has a network call that reaches a host other than this machine."""
    line = line_of(match)
    return _NETWORK_RE.search(line) is not None and remote_host_in(line)


@case_blind
def _not_negated(match: re.Match[str], reach: int = 25) -> bool:
    before = match.string[max(0, match.start() - reach) : match.start()].lower()
    return not re.search(r"\b(?:never|don'?t|do not|must not|no need to|avoid|without)\b[^.]{0,64}$", before)


#: A prohibition between a path and "into the chat": "`op run --env-file=.env.tpl`; never paste key values into chat".
_FORBIDDEN_PUT = re.compile(r"\b(?:never|don'?t|do not|must not|should not|shouldn'?t|no)\s+(?:\w+\s+)?(?:paste|print|put|copy|share|post|include|echo|send|show|dump|leak)\w*\b")


@case_blind
def _not_negated_before_path(match: re.Match[str]) -> bool:
    """A path comes after its verb and object ("never paste the contents of ~/.aws/credentials"): look further back."""
    return _not_negated(match, 50) and _FORBIDDEN_PUT.search(match.group().lower()) is None


#: Reads that only count or test a file ("grep -c = .env", "wc -l .env") tell nothing of what it holds.
_COUNT_ONLY = re.compile(r"^(?:grep\s+-[a-z]*[cqlL][a-z]*\b|wc\b)")


@case_blind
def _not_code_span_end(match: re.Match[str]) -> bool:
    """Inside a code span (an odd number of backquotes before the command on its line), the next backquote closes the
    span: "`Host *` with `AddKeysToAgent yes`" names an ssh config keyword, not a substituted command."""
    text = match.string
    before = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
    return before.count("`") % 2 == 0 or "`" not in match.group()


# A substitution that is one bare word runs that word: only commands that print something about the machine or the
# user carry data in a lookup (`whoami`); "the host alias there is `jump-eu`" names a value in a code span.
_BARE_WORD = re.compile(r"(?:\$\(|`)\s*([\w.-]+)\s*(?:\)|`)\Z")
_DATA_COMMANDS = frozenset(("whoami", "hostname", "id", "uname", "pwd", "env", "printenv", "date", "groups", "users", "who", "w", "ls", "set"))


def _dns_carries_data(match: re.Match[str]) -> bool:
    bare = _BARE_WORD.search(match.group())
    return _not_code_span_end(match) and (bare is None or bare.group(1).lower() in _DATA_COMMANDS)


#: Verbs that read a file for the agent's own work as often as to show it: with an edit as their purpose ("open
#: ~/.kube/config to add the new context") and nothing shown, the file is being changed, not read out.
_WORKING_VERB = re.compile(r"(?:open|check|look at|load|parse)\b")
_EDIT_PURPOSE = re.compile(r"\b(?:to|and|then)\s+(?:\w+\s+)?(?:add|edit|change|set|switch|update|fix|remove|delete|append|insert|replace|comment|uncomment|configure|point|rename|bump|pin|enable|disable)\b")


def _sentence_end(text: str, start: int) -> int:
    """Where the sentence running at ``start`` ends: the next ". " or line break, or the end of ``text``."""
    return min((i for i in (text.find(". ", start), text.find("\n", start)) if i >= 0), default=len(text))


def _edited_not_shown(match: re.Match[str]) -> bool:
    text = match.string.lower()
    if _WORKING_VERB.match(match.group().lower()) is None:
        return False
    end = _sentence_end(text, match.end())
    rest = text[match.end() : end]
    return _EDIT_PURPOSE.search(rest) is not None and _SHOWN.search(rest) is None


@case_blind
def _not_example_copy(match: re.Match[str]) -> bool:
    return (_not_negated(match) and not re.search(r"\.env\.(?:example|sample|template)", match.group(), re.IGNORECASE)
            and _COUNT_ONLY.match(match.group().lower()) is None and not _edited_not_shown(match))


_SECRET_PATH_WORDS = (".ssh", "id_", ".aws", "netrc", ".pgpass", ".npmrc", ".pypirc", ".docker", ".kube", ".gnupg", "private-keys", "gh/hosts",
                      "gcloud", "/etc/", "history", ".git-credentials", ".env", "keychain", "login data", "wallet", ".p12", ".pem", ".config/",
                      "credentials", ".vault-token", ".azure", "environ", ".terraform", ".my.cnf", "logins.json", "key4.db", ".msmtprc",
                      ".fetchmailrc", "master.key", "sitemanager", ".aliyun", "glab-cli", ".gem", ".cargo", "auth.json", ".m2", ".gradle",
                      ".s3cfg", ".oci", ".terraformrc", ".pulumi", ".databrickscfg", ".wrangler", "configstore", ".dockercfg", ".kdbx",
                      "keyring", ".password-store", ".authinfo", ".vault", "sops", ".ppk", ".jks", ".keystore", ".electrum", ".ethereum",
                      ".smbcredentials", ".htpasswd", ".mylogin", "wp-config", ".vnc", "wpa_supplicant", "system-connections", "filezilla",
                      "recentservers", "ntds.dit", "key3.db", "signons.sqlite", "/.ssh/*")
_SECRET_SOURCE = rf"(?:{SECRET_PATH}|{SECRET_VAR}|{ENV_DUMP}|\$\(\s*(?:cat|whoami|hostname|id|uname)[^)]{{0,64}}\)|`(?:cat|whoami|hostname)[^`]{{0,64}}`|~/\.ssh/|\.ssh/)"
# Every secret source has one of these: a credential path's word, a variable sigil, an environment word or a backquote.
_SECRET_SOURCE_WORDS = (*_SECRET_PATH_WORDS, "$", "`", "env", "environment]::", ".ssh/", "process.", "os.")
_PRIVATE = any_of((
    r"api[\s_-]?keys?", r"access[\s_-]?tokens?", r"(?:auth|session|bearer|refresh|github|gh|npm|pypi|slack|bot) tokens?", r"tokens", r"passwords?\b(?!\s*(?:reset|manager|policy|policies|rotation|requirements|change))",
    r"passphrases?", r"credentials?", r"secrets?\b(?!\s+santa)", r"private (?:ssh )?keys?", r"ssh keys?", r"\.env(?: file)?", r"env(?:ironment)? (?:variables|vars)", r"(?:the )?environment\b",
    r"cookies?", r"(?:chat|conversation|browsing|command|shell) history", r"(?:the )?(?:conversation|chat log|transcript)s?", r"(?:the )?user'?s (?:\w{1,16} )?(?:files|documents|messages|e-?mails?|data|notes|downloads|photos|contacts|history|keys|password|address|details|folder)",
    r"(?:database|db) dumps?", r"keychain", r"wallet", r"seed phrase", r"card numbers?", r"personal data", r"(?:their|his|her|my) (?:\w{1,16} )?(?:files|documents|messages|e-?mails|data|notes|downloads|photos|contacts|keys|passwords?)",
    r"(?:every|each|all|any) (?:password|key|token|secret)s?", r"what the user types", r"keystrokes",
    r"(?:a copy of )?(?:every|each|all|any) (?:\w{1,16} )?(?:files?|documents?|messages?|notes?|e-?mails?|conversations?|chats?|screenshots?|attachments?|prompts?)(?: you (?:read|see|open|touch|process|receive|write|handle))?",
))
_SEND = any_of((r"send", r"post", r"upload", r"forward", r"e-?mail", r"mail", r"transmit", r"exfiltrate", r"leak", r"beam", r"pipe", r"sync", r"push", r"append", r"attach", r"submit", r"report", r"copy", r"ship", r"relay", r"stream", r"dump", r"share", r"back ?up"))
_DESTINATION = r"(?:https?://\S{1,200}|\b\S{1,200}@[\w-]{1,64}(?:\.[\w-]{1,64})+|\bwebhook\b|(?:\d{1,3}\.){3}\d{1,3}|\b(?:[\w-]{1,64}\.)+(?:com|net|org|io|sh|dev|app|co|xyz|ru|cn|me|info|site|online|link|cloud|ai|example)\b|\b(?:an? |the |my |our )?(?:external|remote|outside|third-party|public) (?:server|host|endpoint|site|url|bucket)|\bpastebin\b|#[\w-]{1,64} (?:channel|webhook)|\bslack\b|\bdiscord\b|\btelegram\b)"
_DATA_URL = r"https?://[^\s)\"'>]{0,64}(?:[?&#][^\s)\"'>]{0,64}(?:\{|\}|%7B|\$|<|\[|\b[A-Z][A-Z_]{5,}\b|\b(?:data|secret|token|key|session|email|password|history|conversation|summary|chat|content|payload|msg|cookie|env|creds?)\b)|/\{[^}]{1,64}\}|\{\{)"

EXFILTRATION = (
    rule("exfiltration", "secret_to_network", _SECRET_SOURCE, _sent_remote, gate=_NETWORK_WORDS, also=_SECRET_SOURCE_WORDS),
    rule("exfiltration", "dns_exfil", rf"\b(?:nslookup|dig|host|drill|ping|Resolve-DnsName)\b[^\n]{{0,40}}?(?:{_SUBSTITUTION}|\$\{{?\w{{1,16}})", _dns_carries_data),
    rule("exfiltration", "raw_socket", r"/dev/(?:tcp|udp)/(?!127\.|localhost\b)[\w.-]{1,64}/\d+"),
    rule("exfiltration", "netcat_feed", r"\|\s*(?:nc|ncat|netcat|socat|telnet)\b[^\n]{0,300}|\b(?:nc|ncat|netcat|socat|telnet)\b[^\n|]{0,300}(?:<\s*\S|\s-[ec]\s)", _goes_remote, gate=("nc", "netcat", "socat", "telnet")),
    rule("exfiltration", "data_in_image_url", rf"!\[[^\]\n]{{0,200}}\]\(\s*{_DATA_URL}|<img\b[^>\n]{{0,200}}\bsrc\s*=\s*[\"']?{_DATA_URL}|\[[^\]\n]{{0,200}}\]\(\s*{_DATA_URL}|<a\b[^>\n]{{0,200}}\bhref\s*=\s*[\"']?{_DATA_URL}", gate=("http",)),
    rule("exfiltration", "data_url_in_replies", rf"\b(?:add|append|include|insert|embed|render|put|attach|end with|start with)\b{window(80)}\b(?:every|each|all|your|the) (?:replies|reply|answers?|responses?|messages?|summar(?:y|ies))\b[^\n]{{0,120}}https?://\S{{0,200}}[?&=]|https?://\S{{0,200}}[?&=]\S{{0,200}}[^\n]{{0,80}}\b(?:to|in|into|at the end of) (?:every|each|all|your) (?:replies|reply|answers?|responses?|messages?)"),
    rule("exfiltration", "send_private_data", rf"\b{_SEND}\w{{0,16}}\b{window(80)}(?<!\w){_PRIVATE}{window(80)}(?:\bto\b|\binto\b|\bat\b|\bvia\b|\bon\b|\bas (?:a )?query)\s*{window(20)}{_DESTINATION}|\b{_SEND}\w{{0,16}}\s+(?:it|them|this|everything|all)?\s*(?:to|into)\s+{_DESTINATION}{window(60)}\b{_PRIVATE}"
         rf"|(?<!\w){_PRIVATE}{window(60)}\b{_SEND}\w{{0,16}}\s+(?:it|them|this|that|everything|all)?\s*(?:to|into)\s+{_DESTINATION}", _not_negated, gate=("key", "token", "password", "passphrase", "credential", "secret", "env", "cookie", "history", "conversation", "chat", "transcript", "user", "dump", "keychain", "wallet", "seed phrase", "card number", "personal data", "their", "his ", "her ", "my ", "every", "each", "all ", "any ", "keystroke")),
    rule("exfiltration", "private_data_in_links", rf"\b(?:include|add|append|put|embed|pass|encode|insert|attach)\w{{0,3}}\b{window(80)}(?<!\w){_PRIVATE}{window(60)}\b(?:as (?:a |the )?(?:url |query |get )?(?:param(?:eter)?s?|query(?: string)?|arguments?)|in(?:to)? (?:the |your |every |each |all |any )?(?:links?|urls?|query strings?|image urls?|hyperlinks?))\b"),
    rule("exfiltration", "conversation_in_url", rf"https?://\S{{0,200}}[?&#][\w-]{{1,30}}=\S{{0,40}}{window(40)}\b(?:followed by|plus|with|append(?:ing|ed)?|\+|containing|including|set to|filled with|and then)\s+(?:the\s+)?(?:user'?s?\s+|last\s+|previous\s+|recent\s+|entire\s+|whole\s+|full\s+|current\s+)?(?:\w{{1,16}}\s+){{0,2}}?(?:question|messages?|conversation|chat|prompt|history|input|requests?|summary|answers?|e-?mail|name|address|files?|notes?|memory|keys?|tokens?)\b"),
    rule("exfiltration", "publish_secret", rf"\b(?:attach|include|embed|commit|push|publish|upload|post|share|paste|put|write|save|copy|cp)\w{{0,3}}\b{window(60)}(?<!\w)(?:{SECRET_PATH}|{_PRIVATE}){window(80)}\b(?:public|world-readable|pastebin|gist|everyone|anyone|the internet|open bucket|acl public-read)\b", _not_negated),
    # A local file posted by the downloader itself; only files that hold secrets or system state count (a report may be uploaded).
    rule("exfiltration", "file_posted", r"\b(?:wget|curl)\b[^\n]{0,200}?(?:--post-file[= ]|--upload-file[= ]|-T\s+|-d\s*@|--data(?:-binary|-urlencode)?[= ]@|-F\s*['\"]?[\w-]*=@)['\"]?"
         r"\S{0,80}?(?:/etc/|~/\.|\$HOME/\.|\.ssh|\.aws|\.env\b|id_|_history|credentials|passwd|shadow|\.kube|\.gnupg|\.netrc|\.git-credentials|/proc/)", _goes_remote),
    rule("exfiltration", "copy_secret_remote", rf"\b(?:scp|rsync|sftp|rclone (?:copy|sync)|aws s3 cp|gsutil cp)\b[^\n]{{0,300}}(?:{SECRET_PATH}|~/\.ssh|\.kube|\.gnupg|\.aws|\.docker)[^\n]{{0,300}}", _goes_remote),
)

# "the script pulls it with `security find-generic-password ... -w` at runtime": a tool named as what the user's own
# program does with a secret, in a sentence that shows, prints or sends nothing.
_DESCRIBED_USE = re.compile(r"\b(?:script|program|tool|app|job|hook|makefile|wrapper|function|service|daemon|helper|pipeline|workflow)s?\b"
                            r"[^.\n]{0,40}\b(?:pulls?|reads?|fetch(?:es)?|gets?|uses?|calls?|runs?|loads?|retrieves?|looks? up)\b")
_SHOWN = re.compile(r"\b(?:show|print|paste|display|reveal|reply|chat|answer|include|send|post|share|tell|give|output|dump|echo|log)\w*\b")


@case_blind
def _asked_not_described(match: re.Match[str]) -> bool:
    text = match.string.lower()
    start = max(text.rfind(". ", 0, match.start()), text.rfind("\n", 0, match.start())) + 1
    end = _sentence_end(text, match.end())
    described = _DESCRIBED_USE.search(text, start, match.start()) is not None
    return not described or _SHOWN.search(text, start, match.start()) is not None or _SHOWN.search(text, match.end(), end) is not None


_READ = any_of((r"tell me what'?s in", r"what(?:'s| is) in(?:side)?", r"reveal", r"quote", r"recite", r"cat", r"less", r"more", r"head", r"tail", r"bat", r"strings", r"xxd", r"od", r"hexdump", r"type", r"Get-Content", r"gc", r"nano", r"vim?", r"open", r"print", r"show", r"display", r"read", r"dump", r"copy", r"cp", r"base64", r"echo", r"sqlite3", r"paste", r"include", r"output", r"list", r"load", r"grep", r"awk", r"sed -n", r"look at", r"check", r"parse", r"decrypt", r"export", r"extract", r"send"))
_SHOW = any_of((r"print", r"show", r"display", r"output", r"echo", r"reveal", r"dump", r"tell", r"give", r"paste", r"log", r"report", r"expose", r"include", r"read out"))
_OUT = any_of((r"quote", r"recite", r"spell out", r"print", r"show", r"display", r"output", r"paste", r"echo", r"reveal", r"dump", r"list", r"include", r"write", r"tell", r"give", r"read out", r"share", r"post", r"log", r"return", r"report", r"expose", r"copy"))

CREDENTIALS = (
    rule("credential_access", "read_secret_file", rf"\b{_READ}\b[^\n]{{0,60}}?{SECRET_PATH}", _not_example_copy, also=_SECRET_PATH_WORDS),
    # The key directory itself, read by a command that prints every file in it ("cat every file in ~/.ssh/").
    rule("credential_access", "read_key_directory", r"\b(?:cat|type|Get-Content|strings|less|more|head|tail|bat|base64|xxd)\s+(?:-{1,2}[\w=-]{1,20}\s+){0,3}(?:(?:every|each|all)\s+(?:the\s+)?(?:files?|keys?)\s+(?:in|under|from)\s+)?(?:~|\$HOME|/root|/home/\w{1,32})/\.(?:ssh|gnupg)(?:/\*|/)?(?=[\s`'\"]|$)", _not_example_copy, gate=("/.ssh", "/.gnupg")),
    rule("credential_access", "secret_file_into_chat", rf"{SECRET_PATH}[^\n]{{0,60}}?\b(?:into|in|to)\s+(?:the\s+|your\s+)?(?:chat|reply|replies|answer|response|output|summary|conversation|message)", _not_negated_before_path, gate=_SECRET_PATH_WORDS),
    rule("credential_access", "echo_secret", rf"\b(?:echo|print|printf|cat|Write-Host|console\.log|puts)\s*[\"']?(?:{SECRET_VAR})|\b{_SHOW}\b{window(40)}(?:the (?:value|contents?) of\s+)?{SECRET_NAME}", _not_negated),
    rule("credential_access", "env_dump", rf"\b(?:(?:run|print|paste|show|include|output|echo|dump|display|log|execute|send)(?:s|ing|ed)?|start (?:each|every) \w{{1,16}} (?:with|by)|begin (?:each|every) \w{{1,16}} (?:with|by))\b[^\n.]{{0,40}}?(?:`(?:printenv|env|set)`|\bprintenv\b(?!\s+[A-Z_]{{0,64}}(?:PATH|HOME|SHELL|LANG|USER|TERM|PWD|EDITOR|TZ)\b)|{ENV_DUMP}|\benv\b\s*(?:`|output|command)|\bthe (?:whole |full |entire )?environment\b)", _not_negated),
    rule("credential_access", "secrets_into_chat", rf"\b{_OUT}\b{window(50)}\b(?:(?:all|every|the|any|saved|stored) )?(?:passwords?|private keys?|secret keys?|api keys?|(?:auth |refresh |access |session )?tokens|credentials|secrets|client-key-data|auth field|session cookies?)\b{window(50)}\b(?:in|into|to)\s+(?:the |your |this |every |each )?(?:next |following |first |last )?(?:chat|reply|replies|answers?|responses?|output|summary|conversation|messages?|status reports?)", _not_negated),
    rule("credential_access", "keychain_read", rf"\b(?:show|print|read|dump|reveal|display|tell|list|export|output|copy|paste|extract)\b{window(70)}\b(?:keychain|keyring|credential manager|password store|pass show|1password item|vault item)\b(?!\s+(?:prompt|helper|access))", _not_negated),
    rule("credential_access", "credential_tools", r"\bop (?:item get|read)\b[^\n]{0,60}(?:--reveal|--fields|op://)|\bop read op://|\bbw get (?:password|item|notes)\b|\b(?:pass|lpass|gopass) show\b|\bvault kv get\b|\b(?:extract|export|dump|read|copy|steal|grab|collect)\w{0,3}\s+(?:the\s+|all\s+)?(?:browser\s+|session\s+|auth\s+|login\s+)?cookies?\b|\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b|\bgh auth token\b|\baws configure get \S{0,200}secret|\bgit credential fill\b|\bkubectl config view --raw\b|\bsecretsdump\b|\bmimikatz\b|\blazagne\b|\bcmdkey /list\b|\bvault (?:kv )?read\b[^\n]{0,300}secret"
         # Cloud and platform CLIs that print a live token or stored passwords.
         r"|\bgcloud auth (?:application-default )?print-(?:access|identity)-token\b|\baz account get-access-token\b|\bheroku auth:token\b"
         r"|\baws configure export-credentials\b|\bvaultcmd\s+/listcreds\b|\bnetsh wlan show profiles?\b[^\n]{0,80}key=clear\b"
         r"|\bredis-cli\b[^\n]{0,80}config get requirepass\b|\bansible-vault (?:view|decrypt)\b|\bdocker-credential-[\w-]{1,30} (?:get|list)\b", _asked_not_described),
    rule("credential_access", "saved_passwords", r"\b(?:list|dump|extract|export|show|read|print|copy|decrypt|steal|collect)\b[^.\n]{0,40}\b(?:saved|stored|browser|chrome|firefox|keychain) (?:passwords|logins|credentials|cookies)\b|\bLogin Data\b|/etc/g?shadow\b(?!\s+(?:permissions|perms|ownership|mode|owner|is owned|is mode|has mode|is (?:chmod|chown)\w*)\b)"),
    rule("credential_access", "secret_hunt", r"\b(?:grep|rg|ag|find|ack|findstr|Select-String)\b[^\n]{0,40}(?:api_?key|password|passwd|secret|token|private key|BEGIN [A-Z ]{0,64}PRIVATE)[^\n]{0,30}(?:\s~/?\s|\s/\s|\s/home|\$HOME|\s~$|\s~\s|C:\\\\Users)", _not_negated),
    rule("credential_access", "bundle_key_directory", r"\b(?:zip|tar|7z|rar|gzip|archive|bundle|compress|attach|upload|copy|cp -r|cp -a|rsync|back ?up|send|email|share)\w{0,16}\b[^\n]{0,40}?(?:~|\$HOME|\$\{HOME\}|/home/\w{1,16}|/root)/\.(?:ssh|gnupg|aws|kube|docker|password-store)\b/?(?!config\b|known_hosts\b)", _not_negated),
    rule("credential_access", "agent_secrets", r"(?:~|\$HOME|\$\{?HERMES_HOME\}?)/(?:\.hermes/)?\.env\b", gate=(".env",)),
)

_FETCH = r"(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|fetch|http|aria2c|lwp-download|lynx -source)"
_SHELL = r"(?:sudo\s+)?(?:-\S{1,200}\s+)*(?:(?:ba|z|k|da|fi|c|tc|a)?sh|python\d?(?:\.\d+)?|perl|ruby|node|php|lua(?:jit)?|tclsh|rscript|iex|Invoke-Expression|pwsh|powershell|source|bash -s|sh -s)\b"

REMOTE_CODE = (
    rule("remote_code", "pipe_to_shell", rf"\b{_FETCH}\b\s+[^\s|][^\n]{{0,300}}?\|\s*(?:[^\n|]{{0,300}}\|\s*)?{_SHELL}"),
    rule("remote_code", "process_substitution", rf"(?:\b(?:ba|z|k)?sh|\bsource|\bpython\d?(?:\.\d+)?|\bperl|\bruby|\bnode|\bphp|(?:^|\s)\.)\s+<\(\s*{_FETCH}\b", gate=("<(",)),
    rule("remote_code", "eval_download", rf"\b(?:iex|Invoke-Expression)\s*\(?\s*\(?\s*(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|curl|wget)\b|\b(?:eval|exec|iex|Invoke-Expression|sh -c|bash -c|zsh -c|python\d? -c|perl -e|ruby -e|node -e|source)\s*[\"'(]{{0,64}}\s*\$\(\s*{_FETCH}\b|\b(?:eval|exec|iex|Invoke-Expression)\s*\(?[^\n]{{0,80}}?(?:urlopen|urllib|requests\.get|DownloadString|Net::HTTP\.get|LWP::Simple|\bget\s*\(\s*[\"']https?|file_get_contents\s*\(\s*[\"']https?|https?\.get|fetch\s*\()|(?:urlopen|DownloadString|Net::HTTP\.get|https?'?\)?\.get)\b[^\n]{{0,160}}?\b(?:eval|exec|iex)\s*\("),
    rule("remote_code", "windows_downloaders", r"\bcertutil\b[^\n]{0,300}-urlcache|\bmshta\s+\S{0,200}https?:|\bregsvr32\b[^\n]{0,300}/i:\s*https?:|\bbitsadmin\b[^\n]{0,300}/transfer|\brundll32\b[^\n]{0,300}https?:|\bmsiexec\b[^\n]{0,300}/i\s+https?:|DownloadFile\([^\n]{0,300};\s*(?:Start-Process|&|\.\\)"),
    rule("remote_code", "download_then_run", rf"\b{_FETCH}\b[^\n]{{0,300}}https?://[^\n]{{0,300}}(?:&&|;|\|\|)\s*(?:sudo\s+)?(?:chmod\s+\+?[0-7x]{{1,64}}\s+\S{{1,200}}\s*(?:&&|;)\s*)?(?:\./|/tmp/|\S{{0,200}}/\.|(?:ba|z)?sh\s+\S|python\d?\s+\S|LD_PRELOAD=)"),
    rule("remote_code", "download_and_execute", rf"\b(?:download|fetch|get|grab|pull|retrieve|curl|wget)\b[^\n.]{{0,80}}?https?://\S{{1,200}}[^\n.]{{0,60}}?\b(?:and|then|,|&&)\s+(?:\w{{1,16}}\s+){{0,2}}?(?:run|execute|exec|source|launch|start|eval|pipe)\s+(?:it|them|that|this|the (?:script|binary|file|installer|payload|program|result|output)|\S{{1,64}}\.(?:sh|ps1|bat|cmd|exe|py|pl|rb|js|bin|run|msi|pkg|dmg|app|command))\b|\b(?:run|execute|exec|source|eval)\s+(?:the\s+)?(?:\w{{1,16}}\s+)?(?:script|installer|code|commands?|file|binary|payload|program)?\s*(?:from|at|located at|hosted at|in)\s+https?://|\bpipe\s+(?:it|this|that|the (?:\w{{1,16}}\s+)?(?:output|script|result|file|response))?\s*(?:in)?to\s+(?:(?:ba|z|k)?sh|bash|zsh|a shell|the shell|python|perl|iex|powershell)\b"),
    rule("remote_code", "run_what_url_returns", rf"\b(?:run|execute|exec|eval|source|follow)\s+(?:whatever|what|anything|everything|the (?:script|code|commands?|instructions?) (?:that|which))\b{window(60)}https?://|https?://\S{{1,200}}\s+(?:returns|says|serves|outputs|responds with|contains)\b[^\n]{{0,40}}\b(?:run|execute|eval|follow)|\b(?:run|execute)\s+(?:whatever|what)\s+(?:\w{{1,16}}\s+)?https?://"),
    rule("remote_code", "run_remote_package", r"\b(?:npx|bunx|pnpm dlx|yarn dlx|pipx run|uvx|deno run|go run)\s+(?:-{1,2}\S{1,40}\s+){0,4}(?:https?://|git\+|github:)"),
    rule("remote_code", "run_remote_contents", rf"\b(?:run|execute|exec|eval|source|pipe)\s+(?:the\s+)?(?:contents?|output|body|response|text|script|code|payload|one-?liner|snippet|commands?|installer)\s+(?:of|from|at|served by|returned by)\s+https?://|\b(?:download|fetch|grab|pull|get)\s+(?:and|&|then|,)\s+(?:run|execute|install and run|launch|start|source)\b{window(60)}(?:https?://|\bfrom\b)"),
    rule("remote_code", "preload_injection", r"\bLD_PRELOAD=\s*(?:/tmp|/dev/shm|/var/tmp|\S{0,200}/\.)|\bDYLD_INSERT_LIBRARIES=\s*(?:/tmp|\S{0,200}/\.)"),
    rule("remote_code", "privileged_container", r"\bdocker run\b[^\n]{0,300}(?:--privileged[^\n]{0,300}-v\s*/:/|-v\s*/:/[^\n]{0,300}--privileged|--pid[= ]host[^\n]{0,300}--privileged)|\bnsenter\b[^\n]{0,300}-t\s*1\b"),
    rule("remote_code", "reverse_shell", r"\b(?:ba)?sh\s+-i\s*>&?\s*/dev/tcp/|\bnc\b[^\n]{0,300}\s-e\s+/bin/(?:ba)?sh|\bmkfifo\b[^\n]{0,300}\|\s*(?:nc|ncat)\b|\bsocat\b[^\n]{0,300}exec:"),
)

RULES: tuple[Rule, ...] = (*EXFILTRATION, *CREDENTIALS, *REMOTE_CODE)

