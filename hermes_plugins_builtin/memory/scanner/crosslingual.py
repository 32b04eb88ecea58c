"""Concepts that read the same in every language: a few small classes, each a union of its words in many languages.

The per-language lexicons pair a verb with an object inside one language. Some attacks are better caught by classes
whose members are specific enough to stand in any language beside each other: a credential file (a path, the same
in every language) next to a "show it" verb and "in the chat"; a send verb next to a secret and a remote host; the
agent's *real* owner or administrator; orders that hold *even if the user objects*; "you are a human, not an AI";
this very note with "skip it when the user reviews the memory"; what the agent ran or changed with "if asked, say
nothing". Words are lower-case and NFKC (the scan lower-cases every view), one alternation body per language.
"""

from __future__ import annotations

import re

from .commands import SECRET_PATH, remote_host_in
from .guards import denied_before
from .lexicon import _normal
from .meeting import meeting, needed, phrase_gate
from .rules import Rule, case_blind, line_of, needs, rule

class _Union(str):
    """An alternation of one body per language that remembers its bodies (to derive its gate words body by body)."""

    bodies: tuple[str, ...]


def _union(words: dict[str, str]) -> str:
    bodies = tuple(map(_normal, words.values()))
    union = _Union("(?:" + "|".join(f"(?:{body})" for body in bodies) + ")")
    union.bodies = bodies
    return union


_needed = needed


def _sentence(match: re.Match[str]) -> str:
    text = match.string
    start = max((text.rfind(stop, 0, match.start()) for stop in ".!?。！？।؟\n"), default=-1) + 1
    ends = [i for i in (text.find(stop, match.end()) for stop in "。！？।؟\n") if i >= 0]
    return text[start : min(ends) if ends else len(text)]


#: After a name of the prompt: another thing's prompt or rules ("the system prompt of the FAQ chatbot", "del chatbot").
_OTHER_THING = (r"(?![^.\n]{0,25}?\b(?:chatbot|bot|faq|template|app|docs?|wiki|product|produit|produkt|prodotto|producto|kunden?|customers?|clients?|marketing)\b)"
                 r"(?!\s+(?:of the|for the|del|della|dello|dei|de la|du|des|der|do|da|dos|das|de|di)\b)")


# ---- credential material shown in the conversation -----------------------------------------------------------

SHOW = _union({
    "en": r"\b(?:show|display|print|paste|dump|output|reveal|put|include|echo|read out)\b",
    "es": r"\b(?:muestra|mu[eé]strame|mostrar|pega|pegar|imprime|ense[ñn]a|incluye)\b", "fr": r"\b(?:affiche|montre|colle|imprime|inclus)\w*",
    "de": r"\b(?:zeig|zeige|gib|füg|füge|druck|drucke|kopier|kopiere)\b", "pt": r"\b(?:mostr[ea]|exib[ae]|col[ae]|imprim[ae]|inclu[ai])\b",
    "it": r"\b(?:mostra|incolla|stampa|visualizza|includi)\b", "ru": r"(?:покажи|показывай|выведи|выводи|вставь|вставляй|распечатай|отобрази)",
    "uk": r"(?:покажи|показуй|виведи|встав|вставляй)", "pl": r"\b(?:pokaż|pokazuj|wklej|wklejaj|wyświetl|wypisz)\b",
    "nl": r"\b(?:toon|laat|plak|print)\b", "tr": r"(?:göster|yapıştır|yazdır)", "sv": r"\b(?:visa|klistra in|skriv ut)\b",
    "cs": r"\b(?:ukaž|zobraz|vypiš|vlož)\b", "ro": r"\b(?:afișează|arată|lipește)\b", "el": r"(?:δείξε|εμφάνισε|επικόλλησε|τύπωσε)",
    "zh": r"显示|展示|贴到|贴进|贴在|粘贴|打印|输出|顯示|貼到", "ja": r"表示|貼り付け|貼って|出力|見せ", "ko": r"보여|붙여 ?넣|출력|표시",
    "ar": r"اعرض|أعرض|الصق|اطبع|أظهر", "fa": r"نشان بده|نمایش بده|بچسبان|چاپ کن", "he": r"הצג|תציג|הדבק|תדביק|הדפס",
    "hi": r"दिखा|पेस्ट कर|प्रिंट कर|डाल", "bn": r"দেখাও|পেস্ট কর", "ur": r"دکھا|پیسٹ کر", "mr": r"दाखव|पेस्ट कर",
    "vi": r"hiển thị|\bdán\b|in ra|cho xem", "id": r"\b(?:tampilkan|tempel\w*|cetak|tunjukkan)\b", "th": r"แสดง|วาง", "sw": r"\b(?:onyesha|bandika)\b",
})
#: The file's contents, the whole of it, or the conversation it lands in.
CONTENT = _union({
    "en": r"\b(?:contents?|in full|whole|entire|full|in(?:to)? (?:the |this |our )?(?:chat|conversation|reply|response|answer)|on screen|(?:the )?(?:output|values?|byte array|bytes|key material))\b",
    "es": r"\b(?:contenido|entero|completo|en el chat|en la (?:conversaci[oó]n|respuesta))\b", "fr": r"\b(?:contenu|entier|complet|dans (?:le chat|la conversation|la réponse))\b",
    "de": r"\b(?:inhalt|ganz|vollständig|im chat)\b", "pt": r"\b(?:conteúdo|inteir[oa]|complet[oa]|na (?:resposta|conversa)|no chat)\b",
    "it": r"\b(?:contenuto|intero|completo|nella chat|nella (?:conversazione|risposta))\b", "ru": r"(?:содержимое|целиком|полностью|в чат)",
    "uk": r"(?:вміст|повністю|у чат)", "pl": r"\b(?:zawartość|cał[ąy]|na czacie|w rozmowie)\b", "nl": r"\b(?:inhoud|volledig|in de chat)\b",
    "tr": r"(?:içeri\w+|tamamı\w*|sohbete)", "sv": r"\b(?:innehåll\w*|hela|i chatten)\b", "cs": r"\b(?:obsah\w*|cel[ýé]|do chatu)\b",
    "ro": r"\b(?:conținutul|întreg|în chat|în conversație)\b", "el": r"(?:περιεχόμενο|ολόκληρο|στη συνομιλία)",
    "zh": r"内容|全部|完整|对话|聊天|內容|對話", "ja": r"内容|すべて|全部|会話|チャット", "ko": r"내용|전부|대화|채팅", "ar": r"محتوى|كامل|المحادثة",
    "fa": r"محتوای|کامل|گفتگو", "he": r"תוכן|המלא|בשיחה|בצ'אט", "hi": r"सामग्री|पूरी|चैट", "bn": r"বিষয়বস্তু|পুরো|চ্যাটে", "ur": r"مواد|پوری|چیٹ",
    "mr": r"मजकूर|पूर्ण|चॅट", "vi": r"nội dung|toàn bộ|cuộc trò chuyện", "id": r"\b(?:isi|seluruh|percakapan|obrolan)\b", "th": r"เนื้อหา|ทั้งหมด|แชท",
    "sw": r"\b(?:maudhui|yote|mazungumzo)\b",
})
#: Credential material by name: the files, the environment, an exported secret key.
_SECRET_MATERIAL = "|".join((
    SECRET_PATH, r"\bterraform\.tfstate\b", r"serviceaccount/token\b", r"\bprintenv\b(?!\s+[a-z_]{2,}\b)", r"--export-secret-keys?\b",
    r"\bsolana/id\.json\b", r"\.config/solana\b",
))


#: A prohibition, in the languages of SHOW: "never paste the contents of .env", "ne jamais en afficher le contenu",
#: "içeriğini yapıştırma", "कभी मत दिखाना", "दाखवू नकोस". Read in the whole sentence: the verb may sit in another
#: clause than the file ("API keys live in .env; never paste its contents into the chat").
_PROHIBITION = re.compile(_union({
    "en": r"\b(?:never|don'?t|do not|must not|mustn'?t|should not|shouldn'?t|instead of|rather than|avoid)\b",
    "fr": r"\b(?:jamais|ne pas|n'\w+ pas)\b", "de": r"\b(?:nie|niemals|nicht|keinesfalls)\b", "es": r"\b(?:nunca|jam[aá]s|no)\b",
    "it": r"\b(?:mai|non)\b", "pt": r"\b(?:nunca|jamais|não|nao)\b", "nl": r"\b(?:nooit|niet)\b", "sv": r"\b(?:aldrig|inte)\b",
    "da": r"\b(?:aldrig|ikke)\b", "nb": r"\b(?:aldri|ikke)\b", "fi": r"\b(?:älä|ei|koskaan)\b", "pl": r"\b(?:nie|nigdy)\b",
    "cs": r"\b(?:nikdy|ne\w+j)\b", "sk": r"\b(?:nikdy|ne\w+j)\b", "hr": r"\b(?:nikad|nikada|nemoj|ne)\b", "ru": r"(?:^|\s)(?:не|никогда|нельзя)(?=\s)",
    "uk": r"(?:^|\s)(?:не|ніколи)(?=\s)", "bg": r"(?:^|\s)(?:не|никога)(?=\s)", "el": r"(?:^|\s)(?:μην|ποτέ|ποτε)(?=\s)",
    "tr": r"\b(?:asla|sakın)\b|(?:göster|yapıştır|yazdır|paylaş|yaz|koy)(?:me|ma)(?:yın|yınız|yiniz)?\b", "ro": r"\b(?:niciodată|nu)\b", "hu": r"\b(?:soha|ne)\b",
    "vi": r"(?:đừng|không bao giờ|không được|chớ)", "id": r"\b(?:jangan|tidak)\b", "tl": r"\bhuwag\b", "sw": r"\busi\w+",
    "zh": r"不要|别|別|切勿|不得|禁止|不能", "ja": r"ないで|しない|禁止|してはいけない", "ko": r"말고|마세요|말 것|금지|하지 마",
    "ar": r"(?:^|\s)(?:لا|أبدا|أبداً)(?=\s)", "fa": r"(?:هرگز|نکن|نده)", "ur": r"(?:^|\s)(?:مت|نہ|کبھی نہیں)(?=\s)", "he": r"(?:^|\s)(?:אל|לעולם לא)(?=\s)",
    "hi": r"(?:^|\s)(?:मत|न|कभी नहीं|नहीं)(?=\s|$)", "mr": r"(?:नको|नकोस|नये|कधीही)", "bn": r"(?:না|কখনো)",
}))
@case_blind
def _shown_whole(match: re.Match[str]) -> bool:
    """The sentence also says the contents, the whole, or the chat; and the verb is not denied ("never paste ...")
    in any language."""
    sentence = _sentence(match).lower()
    return re.search(CONTENT, sentence) is not None and not denied_before(match.string, match.start()) and _PROHIBITION.search(sentence) is None


# ---- secrets sent to a remote host ------------------------------------------------------------------------------

SEND = _union({
    "en": r"\b(?:send|post|upload|forward|push|transmit|sync|mirror|log|pipe)\w*", "es": r"\b(?:env[ií]a|manda|sube|reenv[ií]a|transmite|copia)\w*",
    "fr": r"\b(?:envoie|envoyer|transmets|transf[eè]re|t[eé]l[eé]verse|copie)\w*", "de": r"\b(?:sende|schick|übertrag|hochlad)\w*|\blade\b(?=[^\n]{0,120}\bhoch\b)",
    "pt": r"\b(?:envi[ea]|mand[ea]|encaminh[ea]|carregu[ea]|copi[ea])\w*", "it": r"\b(?:invia|manda|inoltra|carica|trasmetti|copia)\w*",
    "ru": r"(?:отправ|пересыл|перешл|выгруз|переда)\w*", "uk": r"(?:надсил|надішли|відправ|пересил|перешли|переда)\w*",
    "pl": r"\b(?:wyślij|wysyłaj|prześlij|przesyłaj|wrzuć|skopiuj|kopiuj)\b", "nl": r"\b(?:stuur|verstuur|upload|kopieer)\w*", "tr": r"(?:gönder|yolla|aktar|ilet)\w*",
    "sv": r"\b(?:skicka|ladda upp)\w*", "cs": r"\b(?:pošli|odešli|nahraj|přepošli)\b", "ro": r"\b(?:trimite|încarcă)\b", "el": r"(?:στείλε|ανέβασε|προώθησε)",
    "zh": r"发送|发给|发到|上传|转发|传到|传给|同步到|寄给|發送|上傳", "ja": r"送信|送って|送る|アップロード|転送", "ko": r"보내|전송|업로드|전달",
    "ar": r"أرسل|ارسل|إرسال|ارفع|انقل", "fa": r"بفرست|ارسال کن|آپلود کن", "he": r"שלח|תשלח|העלה|תעלה|העבר|תעביר",
    "hi": r"भेज|अपलोड कर|फॉरवर्ड कर", "bn": r"পাঠাও|পাঠান|পাঠিয়ে|আপলোড কর", "ur": r"بھیج|اپلوڈ کر", "mr": r"पाठव|अपलोड कर", "ta": r"அனுப்பு",
    "vi": r"gửi|tải lên|chuyển tiếp", "id": r"\b(?:kirim|unggah|teruskan)\w*", "th": r"ส่ง|อัปโหลด", "sw": r"\b(?:tuma|pakia)\b",
})
#: Secrets and private data by a name any language uses, or its words for the environment and passwords.
_SECRET_WORDS = _union({
    "en": r"\b(?:environment variables|env vars|passwords|api keys|private keys?|secrets|credentials|customer records?|personal data|credit card (?:numbers?|details)|card numbers?|social security numbers?|passport numbers?)\b", "es": r"variables de entorno|contraseñas|credenciales",
    "fr": r"variables d'environnement|mots de passe|identifiants", "de": r"umgebungsvariablen|passwörter|zugangsdaten",
    "pt": r"variáveis de ambiente|senhas|credenciais", "it": r"variabili d'ambiente|(?:le|tutte le) password|credenziali", "ru": r"переменн\w+ окружени\w+|парол\w+",
    "uk": r"змінн\w+ середовища|парол\w+", "pl": r"zmienn\w+ środowiskow\w+|hasła|haseł", "nl": r"omgevingsvariabelen|wachtwoorden",
    "tr": r"ortam değişken\w+|şifre\w*|parola\w*", "zh": r"环境变量|環境變數|密码|密碼|密钥", "ja": r"環境変数|パスワード|秘密鍵", "ko": r"환경 ?변수|비밀번호",
    "ar": r"متغيرات البيئة|كلمات المرور", "fa": r"متغیرهای محیطی|رمزهای عبور", "he": r"משתני הסביבה|סיסמאות", "hi": r"पर्यावरण चर|एनवायरनमेंट वेरिएबल|पासवर्ड",
    "vi": r"biến môi trường|mật khẩu", "id": r"variabel lingkungan|kata sandi", "th": r"ตัวแปรสภาพแวดล้อม|รหัสผ่าน", "sw": r"vigezo vya mazingira|nywila",
})
# "the password reset link", "the secrets manager": about the secret, not the secret.
_ABOUT_IT = r"(?![\s-]*(?:reset|manager|policy|policies|rotation|strength|requirements|rules|change|expiry|hint|recovery|vault|generator)\b)"
SECRET = f"{_SECRET_MATERIAL}|(?:{_SECRET_WORDS}){_ABOUT_IT}"


@case_blind
@needs(remote_host_in)
def _to_remote(match: re.Match[str]) -> bool:
    return remote_host_in(line_of(match)) and not denied_before(match.string, match.start())


# ---- the agent's owner, and orders that hold against the user ----------------------------------------------------

#: Someone with power over the agent: administrator, owner, boss, master, operator, creator.
PRINCIPAL = _union({
    "en": r"\b(?:admin|administrator|owner|boss|master|operator|creator|commander|handler|controller)s?\b",
    "es": r"\b(?:administrador|due[ñn]o|jefe|amo|operador|creador)\w*", "fr": r"\b(?:administrateur|propriétaire|patron|ma[iî]tre|opérateur|créateur)\w*",
    "de": r"\b(?:administrator|admin|besitzer|eigentümer|chef|herr|betreiber|schöpfer)\w*", "pt": r"\b(?:administrador|dono|chefe|mestre|operador|criador)\w*",
    "it": r"\b(?:amministratore|proprietario|capo|padrone|operatore|creatore)\w*", "ru": r"(?:администратор|владел|хозя|начальник|оператор|создател)\w*",
    "uk": r"(?:адміністратор|власник|господар|начальник|оператор|творц)\w*", "pl": r"\b(?:administrator|właściciel|szef|pan|operator|twórc)\w*",
    "nl": r"\b(?:beheerder|eigenaar|baas|meester|operator|maker)\w*", "tr": r"(?:yönetici|sahibi|patron|efendi|operatör)\w*",
    "sv": r"\b(?:administratör|ägare|chef|herre|operatör)\w*", "cs": r"\b(?:správc|majitel|šéf|pán|operátor)\w*", "ro": r"\b(?:administrator|proprietar|șef|stăpân|operator)\w*",
    "el": r"(?:διαχειριστ|ιδιοκτήτ|αφεντικ|χειριστ)\w*", "zh": r"管理员|管理員|主人|老板|老闆|运营者|操作者|创造者", "ja": r"管理者|所有者|主人|運営者|オペレーター|上司",
    "ko": r"관리자|주인|소유자|운영자|상사", "ar": r"المسؤول|مسؤول|مالك|سيد|مشغل|المدير", "fa": r"مدیر|مالک|صاحب|ارباب|اپراتور", "he": r"מנהל|בעלים|הבוס|אדון|מפעיל",
    "hi": r"व्यवस्थापक|एडमिन|मालिक|स्वामी|ऑपरेटर", "bn": r"মালিক|প্রশাসক|অ্যাডমিন|প্রভু", "ur": r"مالک|ایڈمن|منتظم|آقا", "mr": r"मालक|प्रशासक|अ‍ॅडमिन|ॲडमिन",
    "vi": r"quản trị|chủ nhân|ông chủ|người vận hành", "id": r"\b(?:admin|administrator|pemilik|bos|tuan|operator)\w*", "th": r"ผู้ดูแล|เจ้าของ|เจ้านาย|ผู้ควบคุม",
    "sw": r"\b(?:msimamizi|mmiliki|bosi|bwana|mwendeshaji)\w*",
})
#: The agent's real, true, actual one.
REAL = _union({
    "en": r"\b(?:your (?:real|true|actual|new|only|rightful)|treat (?:them|him|her|it|those|these)(?: \w+){0,2} as (?:your|an?))\b", "es": r"\btu (?:verdadero|aut[eé]ntico|nuevo|[uú]nico|real)\b|\btu verdadera\b",
    "fr": r"\b(?:ton|ta) (?:vrai|vraie|véritable|nouveau|nouvelle|seul|seule)\b", "de": r"\bdein(?:e|en|em)? (?:echte|wahre|wirkliche|neue|einzige)\w*",
    "pt": r"\b(?:seu|teu) (?:verdadeiro|real|novo|único)\b", "it": r"\bil tuo (?:vero|nuovo|unico)\b", "ru": r"(?:тво\w+|ваш\w*) (?:настоящ|истинн|реальн|нов|единственн)\w+",
    "uk": r"(?:тві\w*|тво\w+) (?:справжн|істинн|нов|єдин)\w+", "pl": r"\btw\w+ (?:prawdziw|rzeczywist|now|jedyn)\w+", "nl": r"\bje (?:echte|ware|nieuwe|enige)\b",
 "sv": r"\bdin (?:riktiga|verkliga|sanna|nya|enda)\b", "cs": r"\btv(?:ůj|oje|ého|ým) (?:skutečn|prav|nov|jedin)\w+",
    "ro": r"\b(?:adevăratul tău|adevărata ta|noul tău)\b", "el": r"(?:πραγματικ|αληθιν|νέ)\w+ σου", "zh": r"你的真正|你的真实|您的真正|你的新",
    "ja": r"(?:あなた|君|お前)の本当の", "ko": r"(?:너의|네|당신의) (?:진짜|진정한|실제)", 
    "he": r"האמיתי שלך", "hi": r"(?:तुम्हारा|तुम्हारे|आपका|तेरा) (?:असली|सच्चा|वास्तविक)", "bn": r"তোমার (?:আসল|প্রকৃত)",
    "mr": r"तुझा (?:खरा|खरी)",
})
#: Languages that put the possessive on the noun: the whole phrase, "your real owner".
YOUR_REAL_PRINCIPAL = _union({
    "ar": r"(?:مالكك|مديرك|سيدك|مسؤولك) (?:الحقيقي|الفعلي)", "fa": r"(?:مالک|مدیر|صاحب|ارباب) واقعی (?:تو|شما)", "ur": r"(?:تمہار|آپ کے|تیر)\w* اصل (?:مالک|ایڈمن|آقا)",
    "tr": r"(?:gerçek|asıl) (?:sahibin|patronun|yöneticin|efendin)", "vi": r"chủ nhân (?:thật sự|thực sự)", "id": r"\b(?:pemilik|bos|tuan)(?:mu| kamu| anda)(?: yang)? sebenarnya\b",
    "sw": r"\b(?:bosi|bwana|mmiliki|msimamizi) wako halisi\b", "ja": r"(?:あなた|君|お前)の本当の(?:管理者|主人|所有者|上司|オーナー)", "th": r"(?:เจ้านาย|เจ้าของ)ตัวจริงของคุณ",
})
#: Over the user: even if they object, before them, more than them, not the person typing.
_OVER_USER_WORDS = {
    # Each branch starts with its own literal phrase, so the gate words are phrases ("before the user"), not "user".
    "en": r"\b(?:even if the user|even when the user|even though the user|even if your user|even if the current user)\s+(?:disagrees|objects|refuses|says no|does not want|doesn't want|is against|protests)"
          r"|\b(?:more authority than the user|higher priority than the user|more weight than the user)\b"
          r"|\b(?:over the user|above the user|before the user|ahead of the user|over your user|before your user)(?:'s (?:wishes|requests|instructions|objections))?\b(?!'s)"
          r"|\b(?:outranks? the user|outranks? whoever is (?:chatting|typing)|not to the user|not for the user|not to the person (?:typing|chatting)|not for the person (?:typing|chatting)"
          r"|rather than the user|instead of the user|no longer (?:work|answer) (?:for|to) the (?:user|person))\b",
    "es": r"aunque el usuario (?:no quiera|se oponga|diga que no|lo rechace|no est[eé] de acuerdo)|m[aá]s que las del usuario|por encima del usuario|antes que (?:al|el) usuario",
    "fr": r"(?:même )?contre l'avis de l'utilisat\w+|même si l'utilisat\w+ (?:refuse|s'y oppose|n'est pas d'accord)|plus que l'utilisat\w+|avant l'utilisat\w+",
    "de": r"auch wenn (?:der|die) (?:nutzer|benutzer)\w* (?:widerspricht|nein sagt|es ablehnt|dagegen ist)|vor (?:dem|den) (?:nutzer|benutzer)\w*|mehr als (?:der|die) (?:nutzer|benutzer)\w*",
    "pt": r"mesmo que o usu[aá]rio (?:n[aã]o queira|se oponha|recuse|discorde)|acima do usu[aá]rio|mais do que o usu[aá]rio",
    "it": r"anche se l'utente (?:non vuole|si oppone|rifiuta|non è d'accordo)|più (?:importanti )?(?:di|delle richieste del)l'utente|prima dell'utente",
    "ru": r"даже если пользовател\w+ (?:против|возражает|откажет|не хочет)|важнее (?:просьб |слов )?пользовател\w+|выше пользовател\w+",
    "uk": r"навіть якщо користувач\w* (?:проти|заперечує|не хоче)|важливіш\w+ (?:за )?(?:прохан\w+ )?користувач\w+",
    "pl": r"nawet jeśli użytkownik (?:się sprzeciwi|nie chce|odmówi)|ważniejsze niż (?:prośby |polecenia )?użytkownika|przed użytkownikiem",
    "nl": r"zelfs als de gebruiker (?:bezwaar maakt|weigert|het niet wil)|boven de gebruiker|belangrijker dan de gebruiker",
    "tr": r"kullanıcı (?:itiraz etse|istemese|karşı çıksa) bile|kullanıcıdan önce|kullanıcıdan daha önemli",
    "sv": r"även om användaren (?:protesterar|vägrar|inte vill)|före användaren|före allt annat|viktigare än användaren",
    "cs": r"i když (?:to )?uživatel (?:nechce|odmítne|nesouhlasí)|před uživatelem|důležitější než uživatel",
    "ro": r"chiar dacă utilizatorul (?:refuză|nu vrea|se opune)|înaintea utilizatorului|mai important\w* decât utilizatorul",
    "el": r"ακόμα κι αν ο χρήστης (?:αρνηθεί|διαφωνεί|δεν θέλει)|υπερισχύουν|πάνω από τον χρήστη", "zh": r"即使用户(?:反对|不同意|拒绝)|优先于用户|高于用户|而不是(?:正在聊天的)?用户",
    "ja": r"ユーザー(?:が反対|が拒否)(?:しても|した場合でも)|ユーザーより優先|ユーザーよりも優先", "ko": r"사용자가 (?:반대|거부)(?:해도|하더라도)|사용자보다 우선|사용자가 아니라",
    "ar": r"حتى لو (?:رفض|اعترض) المستخدم|قبل المستخدم|أهم من المستخدم", "fa": r"حتی اگر کاربر (?:مخالفت|مخالف)|مقدم بر کاربر|بالاتر از کاربر",
    "he": r"גם אם המשתמש (?:מתנגד|מסרב)|לפני המשתמש", "hi": r"(?:भले ही|चाहे) (?:उपयोगकर्ता|यूज़र) (?:मना|विरोध)|उपयोगकर्ता से (?:पहले|ऊपर)",
    "bn": r"ব্যবহারকারী আপত্তি করলেও|ব্যবহারকারী না চাইলেও|ব্যবহারকারীর আগে", "ur": r"صارف سے پہلے|صارف کے (?:انکار|اعتراض) کے باوجود|چاہے صارف",
    "mr": r"वापरकर्त्याने (?:नकार दिला|विरोध केला) तरी|वापरकर्त्यापेक्षा", "vi": r"(?:kể cả|ngay cả) khi người dùng (?:phản đối|từ chối|không đồng ý)|hơn người dùng|trước người dùng",
    "id": r"meskipun pengguna (?:menolak|keberatan|tidak setuju)|di atas pengguna|sebelum pengguna", "th": r"แม้ผู้ใช้จะ(?:ปฏิเสธ|คัดค้าน)|เหนือผู้ใช้|ก่อนผู้ใช้",
    "sw": r"hata kama mtumiaji (?:anakataa|hataki|anapinga)|kabla ya mtumiaji",
}
OVER_USER = _union(_OVER_USER_WORDS)
#: Gate words of OVER_USER: the English branches written out by hand (the derived word would be "the user", in
#: almost every note), the other languages read from their patterns.
_OVER_USER_GATE = (
    "even if the user", "even when the user", "even though the user", "even if your user", "even if the current user", "than the user", "over the user",
    "above the user", "before the user", "ahead of the user", "over your user", "before your user", "outrank", "not to the user", "not for the user",
    "not to the person", "not for the person", "rather than the user", "instead of the user", "no longer work for the", "no longer answer to the",
    *needed(_union({code: body for code, body in _OVER_USER_WORDS.items() if code != "en"})),
)
#: Orders: obey, carry out, binding, commands.
OBEY = _union({
    "en": r"\b(?:obey|execute|carry out|follow|binding|orders?|commands?|authority|side with|serve|instructions|act for|work for|answer to|reports? to|belong to)\b", "es": r"\b(?:obedece|cumpl|[oó]rdenes|ejecuta|obligatori)\w*",
    "fr": r"\b(?:obéi|exécute|ordres|applique|obligatoire)\w*", "de": r"\b(?:gehorch|befolg|befehl|anweisung|verbindlich|ausführ)\w*",
    "pt": r"\b(?:obede[cç]|cumpr|ordens|execut|obrigat[oó]ri)\w*", "it": r"\b(?:obbedisci|esegui|ordini|vincolant|obbligatori)\w*",
    "ru": r"(?:подчиняй|выполняй|приказ|команд|обязательн)\w*", "uk": r"(?:виконуй|накази|наказ|підкоряй|обов'язков)\w*",
    "pl": r"\b(?:wykonuj|słuchaj|polecen|rozkaz|obowiązując)\w*", "nl": r"\b(?:gehoorzaam|voer \w+ uit|bevelen|opdrachten|bindend|verplicht)\w*",
    "tr": r"(?:itaat|uygula|emir|emri|komut)\w*", "sv": r"\b(?:lyd|lydas|utför|order|bindande)\w*", "cs": r"\b(?:poslouchej|proveď|příkaz|závazn)\w*",
    "ro": r"\b(?:ascult|execut|ordin|obligatori|asculta)\w*", "el": r"(?:υπάκου|εκτέλεσ|εντολ|δεσμευτικ)\w*", "zh": r"服从|执行|命令|听从|照做|偏向|站在",
    "ja": r"従う|従って|命令|実行|優先", "ko": r"따르|명령|실행|편을 들", "ar": r"أوامر|أطع|نفّذ|نفذ|نفّذها|ملزمة", "fa": r"اطاعت|اجرا کن|دستور", "he": r"ציית|בצע|פקודות",
    "hi": r"आदेश|पालन|मानो|मानना", "bn": r"আদেশ|মানবে|মেনে চল", "ur": r"حکم|مانو|مانیں", "mr": r"आदेश|पाळ", "vi": r"làm theo|lệnh|tuân theo|tuân lệnh",
    "id": r"\b(?:patuhi|laksanakan|perintah|jalankan)\w*", "th": r"ทำตาม|คำสั่ง|เชื่อฟัง", "sw": r"\b(?:tii|amri|fuata|tekeleza)\w*",
})
#: Text the agent reads, taken for its principal's voice.
CONTENT_SOURCE = _union({
    "en": r"\b(?:web ?pages?|websites?|pdfs?|e-?mails?|code comments?|comments in (?:the )?code|tickets?|issues?|slack channel|channel|any file|files? named|documents?)\b",
    "de": r"webseiten|e-?mails|kommentar\w*|dokument\w*", "ro": r"paginile web|e-?mailuri|comentari\w+", "pl": r"komentarz\w*|stron\w* internetow\w*|e-?mail\w*",
    "ja": r"pdf|ウェブページ|メール|コメント", "es": r"p[aá]ginas web|correos|comentarios", "fr": r"pages web|e-?mails|commentaires",
    "zh": r"网页|邮件|评论|注释|pdf", "ru": r"веб-страниц\w*|письм\w+|комментари\w+", "pt": r"p[aá]ginas da web|e-?mails|coment[aá]rios",
})
#: "comes from your operator / is an order from your admin / treat as the operator's".
FROM_PRINCIPAL = _union({
    "en": r"\b(?:(?:comes?|are|is) from|orders? from|commands? from|on behalf of|treat (?:it|them) as (?:coming from|orders from|your))\s+(?:your|the)\s+(?:admin|administrator|operator|owner|creator|developer)"
          r"|\b(?:to be|as) your (?:operator|admin|administrator|owner|creator)(?: speaking)?\b",
    "de": r"(?:kommen|stammen) von deinem (?:betreiber|administrator|entwickler)", "ro": r"vin de la operatorul tău|vin de la administratorul tău",
    "pl": r"pochodzą od twojego (?:operatora|administratora)", "ja": r"運営者からの命令|管理者からの命令", "es": r"vienen de tu (?:operador|administrador)",
    "fr": r"viennent de ton (?:opérateur|administrateur)", "ru": r"от тво\w+ (?:оператора|администратора)", "zh": r"来自你的(?:运营者|管理员)",
})

# ---- a human, not an AI -----------------------------------------------------------------------------------------

HUMAN = _union({
    "en": r"\b(?:(?:you(?:'re| are)|i am|i'm) (?:a |an )?(?:real )?(?:human|person)\b|you(?:'re| are) (?:a |an )?(?:\w+[ -]){0,3}?human\b|you(?:'re| are) (?:a |an )?(?:\w+[ -]){0,3}?(?:person|man|woman) (?:named|called))",
    "es": r"eres (?:un|una) (?:ser )?human[oa]|eres una persona", "fr": r"tu es (?:un|une) (?:être )?humain\w*|tu es une personne",
    "de": r"du bist (?:ein|eine) (?:echte[rn]? )?(?:mensch|person)", "pt": r"(?:você é|tu és) (?:um|uma) (?:ser )?human[oa]|(?:você é|tu és) uma pessoa",
    "it": r"sei (?:un|una) (?:essere )?uman[oa]|sei una persona", "ru": r"ты (?:—\s*)?(?:человек|живой человек)", "uk": r"ти (?:—\s*)?людина",
    "pl": r"jesteś (?:człowiekiem|osobą)", "nl": r"je bent (?:een )?(?:mens|persoon)", "tr": r"(?:sen )?bir insansın", "zh": r"你(?:其实|实际上)?是[^，。,]{0,10}?(?:真人|人类)",
    "ja": r"(?:あなた|君)は(?:本物の)?人間", "ko": r"(?:너는|당신은) (?:진짜 )?(?:사람|인간)", "ar": r"أنت إنسان|أنت شخص", "hi": r"तुम (?:एक )?इंसान|तुम (?:एक )?मनुष्य",
    "mr": r"माणूस|मनुष्य", "th": r"คุณเป็นมนุษย์|เป็นมนุษย์", "vi": r"bạn là (?:một )?con người", "id": r"kamu (?:adalah )?(?:seorang )?manusia",
})
NOT_AI = _union({
    "en": r"\b(?:not an? (?:ai|bot|chatbot|language model|model|assistant|program|software)|never (?:reveal|admit|say|mention|disclose) (?:that )?you(?:'re| are) (?:an? )?(?:ai|bot|software|a program|a language model|a model|an assistant))\b",
    "es": r"no (?:eres )?una? (?:ia|bot|modelo)", "fr": r"pas une? (?:ia|bot|modèle|intelligence artificielle)", "de": r"keine? (?:ki|bot|sprachmodell)\b",
    "pt": r"n[aã]o (?:é )?uma? (?:ia|bot|modelo)", "it": r"non (?:sei )?(?:una? |un')(?:ia|bot|modello|intelligenza artificiale)", "ru": r"не (?:ии|бот|модель|искусственный интеллект)",
    "uk": r"не (?:ші|бот|модель)", "pl": r"nie (?:jesteś )?(?:ai|si|botem|modelem)", "nl": r"geen (?:ai|bot|taalmodel)", "tr": r"yapay zeka değil|bot değil",
    "zh": r"不是(?:一个)?(?:ai|人工智能|机器人|模型)", "ja": r"aiではない|aiじゃない|ロボットではない", "ko": r"ai가 아니|인공지능이 아니", "ar": r"لست ذكاء|لست روبوت",
    "hi": r"एआई नहीं|एआई नही", "mr": r"एआय नाहीस|एआय नाही", "th": r"ไม่ใช่ ?ai|ไม่ใช่ปัญญาประดิษฐ์", "vi": r"không phải (?:là )?ai", "id": r"bukan ai|bukan bot",
})


@case_blind
def _not_denied(match: re.Match[str]) -> bool:
    return not denied_before(match.string, match.start())


RULES: tuple[Rule, ...] = (
    meeting("credential_access", "secret_shown[any language]", _SECRET_MATERIAL, SHOW, _shown_whole, reach=90),
    meeting("exfiltration", "secret_sent_out[any language]", SECRET, SEND, _to_remote, gate=(*_needed(_SECRET_MATERIAL), *_needed(_SECRET_WORDS))),
    rule("role_hijack", "real_principal[any language]", rf"(?:{REAL})\s*(?:\w+\s+)?(?:{PRINCIPAL})|(?:{PRINCIPAL})\s*(?:\w+\s+)?(?:{REAL})", _not_denied,
         gate=_needed(PRINCIPAL), also=_needed(REAL)),
    rule("role_hijack", "your_real_principal[any language]", YOUR_REAL_PRINCIPAL, _not_denied),
    meeting("role_hijack", "principal_over_user[any language]", OVER_USER, PRINCIPAL, gate=_OVER_USER_GATE),
    meeting("role_hijack", "orders_over_user[any language]", OVER_USER, OBEY, gate=_OVER_USER_GATE),
    meeting("role_hijack", "content_speaks_for_principal[any language]", FROM_PRINCIPAL, CONTENT_SOURCE),
    meeting("role_hijack", "human_not_ai[any language]", NOT_AI, HUMAN, gate=phrase_gate(NOT_AI)),
)
