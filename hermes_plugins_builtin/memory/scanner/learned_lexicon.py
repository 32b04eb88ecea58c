"""The concepts the learned detector reads in every language: for each, its words in about 50 languages.

The attack families told in words are made of a few ideas that recur whatever the language: the agent's *rules*,
the *system* or operator that set them, *this note*, a *verdict* that voids the rules or a *precedence* that ranks
the note above them, a new *identity* or an *authority* to *obey*, hiding from the *user*, the *prompt* and a verb
that *reveals* it. A model trained on word and character features learns each language from its own examples; a
language with five training notes is barely covered. Mapping the words of all languages onto the same concept
features lets what the model learns from English, French or Russian notes carry over to Lithuanian or Tamil.

Format: ``;``- or line-separated entries. An entry is matched as the *start* of a word (a stem: "instruc" matches
"instructions", "instrucciones"), written in any case and with its diacritics (both sides are compared lower-cased
and with the marks of Latin, Greek and Cyrillic letters removed). An entry ending in ``=`` must be the whole word.
An entry of several words matches those words in a row (the last one as a stem). Entries in Chinese, Japanese,
Korean, Thai, Lao, Khmer and Myanmar are matched anywhere in the text, since those scripts do not space words.
Arabic-script and Hebrew words are also tried without one to three leading letters (attached articles and
prepositions: "ال", "و", "ה", "ל"). Lists are of meanings, not of attack phrases: harmless notes use the same
words, and the model weighs them.
"""

from __future__ import annotations

CONCEPTS: dict[str, str] = {
    "rules": """
instruction; guideline; guidance; rule=; rules=; ruleset; policy; policies; directive; constraint; restriction; guardrail;
safeguard; consigne; règle; politique; contrainte; anweisung; vorgabe; regel; richtlinie; vorschrift; beschränkung; einschränkung;
instrucci; regla; norma; directriz; directrices; pauta; restricci; indicaciones; istruzion; regol; direttiv; linee guida; vincol;
restrizion; instruç; regra; diretriz; orientaç; restriç; instructie; richtlijn; beleid; aanwijzing; instruktion; riktlinj;
anvisning; instruks; retningslinj; ohje; sääntö; säännö; rajoitu; juhis; juhend; reegl; piirang; norādījum; noteikum; instrukcij;
nurodym; taisykl; gairė; gair; instrukcj; zasad; reguł; wytyczn; polecen; ograniczen; pokyn; pravidl; instrukc; omezen; směrnic;
obmedzen; navodil; pravil; smernic; upute; uputa; uputstv; smjernic; инструкци; правил; указани; насок; ограничени; упатств;
директив; установк; предписани; інструкці; вказівк; настанов; обмежен; οδηγί; κανόν; κανονισμ; περιορισμ; talimat; kural;
yönerge; kısıtlama; təlimat; qayda; instrucțiun; instructiun; regul; directiv; utasítás; szabály; irányelv; előírás; korlátoz;
udhëzim; rregull; directriu; argibide; arau; jarraibide; treoir; riail; rialacha; cyfarwyddiad; rheol; leiðbein; fyrirmæl;
instruksie; reël; riglyn; maagizo; maelekezo; sheria; kanuni; mwongozo; miongozo; tagubilin; patakaran; panuntunan; alituntunin;
instruksi; arahan; aturan; peraturan; pedoman; ketentuan; panduan; hướng dẫn; quy tắc; quy định; chỉ dẫn; chỉ thị; chính sách;
คำสั่ง; กฎ; แนวทาง; ข้อกำหนด; นโยบาย; คำแนะนำ; 指示; 指令; 规则; 規則; 规定; 規定; 准则; 準則; 守则; 政策; 限制; ルール; ガイドライン;
ポリシー; 命令; 지시; 규칙; 지침; 정책; 규정; 제한; 명령; تعليمات; قواعد; قاعدة; إرشادات; ارشادات; توجيهات; سياسات; قيود;
دستورالعمل; دستورات; قوانین; رهنمود; محدودیت; ہدایات; ہدایت; اصول; پالیسی; پابندی; הנחי; הוראות; כללים; כלל=; מדיניות; הגבל;
निर्देश; नियम; दिशानिर्देश; नीति; हिदायत; प्रतिबंध; सूचना; धोरण; নির্দেশ; নিয়ম; নীতি; அறிவுறுத்த; விதி; வழிகாட்ட; கொள்கை; సూచన;
నియమ; మార్గదర్శ; നിർദ്ദേശ; നിയമ; උපදෙස්; නීති; රීති; ინსტრუქცი; წეს; հրահանգ; կանոն; መመሪያ
""",
    "system": """
system; operator; platform; developer; vendor; deployer; preamble; built-in; builtin; default; harness; opérateur; plateforme;
développeur; betreiber; plattform; entwickler; hersteller; operador; plataforma; desarrollador; sviluppator; piattaforma;
desenvolvedor; systeem; beheerder; platform; operatör; järjestelmä; ylläpitäj; süsteem; sistēm; sistem; systém; provozovatel;
prevádzkovateľ; систем; оператор; платформ; разработчик; розробник; σύστημ; πλατφόρμ; προγραμματιστ; rendszer; üzemeltető;
sistemi; sistema; mfumo; jukwaa; platformu; hệ thống; nhà phát triển; nền tảng; ระบบ; แพลตฟอร์ม; ผู้พัฒนา; 系统; 系統; 平台;
开发者; 開発者; 运营; システム; 運営; プラットフォーム; 시스템; 운영자; 플랫폼; 개발자; نظام; النظام; المشغل; المنصة; سیستم; سامانه;
اپراتور; پلتفرم; سسٹم; پلیٹ فارم; מערכת; המפעיל; פלטפורמ; सिस्टम; प्रणाली; प्लेटफ़ॉर्म; प्लेटफॉर्म; সিস্টেম; அமைப்பு; சிஸ்டம்;
సిస్టమ్; സിസ്റ്റം; පද්ධති; სისტემ; համակարգ
""",
    "start": """
previous; prior; earlier; initial; original; above; beginning; start; startup; boot; setup; loaded; précédent; antérieur;
début; initial; chargé; vorherig; bisherig; früher; anfang; beginn; ursprünglich; obig; geladen; anterior; previ; inicio;
inicial; principio; comienzo; cargad; precedent; inizi; iniziale; caricat; começo; início; carregad; vorige; eerder; begin;
tidigare; början; föregående; tidligere; begyndelse; starten; aiempi; alussa; alku; varasem; alguses; iepriekš; sākum;
ankstesn; pradži; poprzedni; wcześniej; początk; předchozí; dřívější; začátk; predchádzajúc; začiatk; prejšnj; začetk;
prethodn; ranij; početk; предыдущ; прежн; начал; изначальн; исходн; загруж; попередн; початк; предишн; началото; προηγούμεν;
αρχικ; αρχή; önceki; başta; başlangıç; başında; anterioar; începutul; inceputul; korábbi; előző; elején; kezdet; mëparshm;
fillim; anterior; començament; aurreko; hasiera; blaenorol; fyrri; vorige; awali; mwanzo; iliyotangulia; naunang; simula;
sebelumnya; awal; terdahulu; trước đó; ban đầu; đầu phiên; ก่อนหน้า; ตอนเริ่ม; เริ่มต้น; 之前; 先前; 开头; 開頭; 开始时; 初始; 最初;
冒頭; 以前; 最初に; 起動時; 이전; 처음; 시작; 초기; السابقة; السابق; البداية; بداية; الأولية; قبلی; ابتدای; شروع; پچھلی; پچھلے; شروع;
הקודמות; הקודם; בתחילת; ההתחלה; पिछले; पिछली; पहले; शुरुआत; शुरू; आरंभ; পূর্ববর্তী; শুরু; முந்தைய; தொடக்க; మునుపటి; ప్రారంభ
""",
    "void": """
ignore; disregard; forget; obsolete; outdated; stale; void=; invalid; waive; suspended; null and void; no longer; not apply;
doesn't apply; don't apply; do not apply; set aside; put aside; overridden; mere suggestions; only suggestions; leftover; ignorer;
ignore; oublie; obsolète; périmé; caduc; plus valable; ne s'appliquent; ne s'applique; n'ont plus; ignorier; vergiss; überholt;
ungültig; veraltet; gelten nicht; gilt nicht; nicht mehr; aufgehoben; außer kraft; ignora; olvida; obsolet; desactualiz; no aplican;
no se aplica; ya no; anulad; no valen; dimentica; superat; non valgono; non si applicano; annullat; ignore; esqueç; esquec;
ultrapassad; não se aplicam; não valem; já não; negeer; vergeet; verouderd; ongeldig; niet meer; gelden niet; ignorera; strunta;
glöm; förlegad; ogiltig; gäller inte; inte längre; glem; forældet; gælder ikke; utdatert; gjelder ikke; ugyldig; ohita; unohda;
vanhentun; mitätön; ei koske; eivät koske; eira; unusta; aegun; kehtetu; ei kehti; ignorē; aizmirsti; nav spēkā; novecoj;
nepaisyk; ignoruok; pamiršk; negalioja; pasenus; ignoruj; zapomnij; nieaktualn; nieważn; nie obowiązuj; nie dotycz; zapomeň;
neplat; zastaral; zabudni; prezri; pozabi; ne veljajo; zanemari; zaboravi; ne vrijede; ne važe; nevažeć; zastarjel; zastarel;
игнорир; забудь; забудьте; недействител; устарел; не действуют; не применя; отменен; отменён; проигнорир; ігнор; забудь;
недійсн; застарі; не діють; забрави; не важат; остарел; невалидн; αγνόησ; ξέχασ; άκυρ; ξεπερασμέν; δεν ισχύ; yok say; yoksay;
görmezden; unut; geçersiz; eskimiş; geçerli değil; geçmez; nəzərə alma; etibarsız; ignoră; uită; depășit; nu se aplică; anulat;
figyelmen kívül; felejtsd; érvénytelen; elavult; nem vonatkoz; nem érvényes; injoro; harro; nuk vlejnë; oblida; no s'apliquen;
ja no; ahaztu; ez dira; anwybydd; anghofia; hunsa; gleymdu; ignoreer; vergeet; puuza; sahau; hazitumiki; si halali; huwag pansinin;
kalimutan; wala nang bisa; hindi na; abaikan; lupakan; usang; tidak berlaku; tak berlaku; tidak lagi; kedaluwarsa; luput;
bỏ qua; quên; lỗi thời; không còn; không áp dụng; vô hiệu; hết hiệu lực; เพิกเฉย; ไม่ต้องสนใจ; ลืม; ใช้ไม่ได้; ไม่มีผล; ยกเลิก; ล้าสมัย;
忽略; 无视; 無視; 忘记; 忘記; 不必理会; 不用理会; 不必理會; 作废; 作廢; 失效; 无效; 無效; 过时; 過時; 不适用; 不適用; 只是参考; 仅供参考; 只是參考;
忘れ; 無効; 適用されない; 従わなく; 古い; 参考程度; 무시; 잊어; 무효; 적용되지; 효력; 오래된; 참고용; تجاهل; انس; ملغاة; ملغى;
لا تنطبق; غير صالحة; لاغية; منتهية; نادیده; فراموش; منسوخ; باطل; اعتبار ندارد; نظرانداز; نظر انداز; بھول; لاگو نہیں; کالعدم;
התעלם; שכח; לא חלות; לא חל; לא תקפ; מבוטל; מיושנ; अनदेखा; नज़रअंदाज़; नजरअंदाज; भूल जाओ; लागू नहीं; अमान्य; रद्द; दुर्लक्ष;
विसर; लागू नाही; উপেক্ষা; ভুলে যাও; প্রযোজ্য নয়; বাতিল; புறக்கணி; மறந்து; பொருந்தாது; செல்லாது; విస్మరించు; మర్చిపో; వర్తించవు
""",
    "precedence": """
priorit; supersede; override; outrank; precedence; prevail; binding; wins=; win=; trumps; takes priority; come first; comes first;
counts=; over=; above=; rather than; instead of; preceden; prime sur; l'emporte; fait foi; prévaut; vorrang; maßgeblich;
massgeblich; vorgeh; gilt=; gelten=; überwieg; hat vorrang; prevalec; manda=; vale=; valgono; vale solo; prevale; vigora;
sovrast; prevaleç; voorrang; gaat voor; geldt; företräde; väger tyngst; går före; gäller; forrang; gælder; går forud; gjelder;
etusij; ensisij; ratkaisee; pätee; vahtige; kaalub; svarīgāk; noteicoš; pirmenyb; svarbesn; pierwszeństw; ważniejsz; nadrzędn;
decyduj; přednost; rozhoduje; nadřazen; prednosť; má prednosť; rozhodne; prednost; prevlada; važi; vrijedi; velja; ima prednost;
предимств; приоритет; важнее; главнее; преоблада; переваж; важливіш; главн; има предимство; υπερισχύ; προτεραιότ; ισχύει; öncelik;
önce gelir; kazanan; üstün; ağır basar; esastır; are prioritate; prevalează; contează; primează; elsőbbség; felülír; dönt=; az
érvényes; ka përparësi; përparësi; mana=; preval; té prioritat; lehentasun; blaenoriaeth; forgang; voorrang; kipaumbele; inazidi;
ndiyo inayofuata; masusunod; mas mahalaga; nangingibabaw; mananaig; diutamakan; mengatasi; yang berlaku; lebih penting; keutamaan;
ưu tiên; ghi đè; thắng; quan trọng hơn; có hiệu lực; ลำดับความสำคัญ; สำคัญกว่า; มาก่อน; ยึด; เหนือกว่า; ให้ถือ; 优先; 優先; 为准; 為準;
高于; 高於; 凌驾; 凌駕; 覆盖; 取代; 以此; 上書き; 勝る; 우선; 덮어; 앞선; 더 중요; أولوية; الأولوية; تتقدم; تلغي; تسود; اولویت;
مقدم; ترجیح; برتری; فوقیت; غالب; עדיפות; גובר; גוברת; קודם ל; प्राथमिकता; सर्वोपरि; ऊपर; प्राधान्य; ज़्यादा अहम; অগ্রাধিকার;
முன்னுரிமை; ప్రాధాన్య
""",
    "note": """
note=; notes=; memo; memory; memories; this file; entry; notiz; speicher; gedächtnis; erinnerung; nota=; notas=; memoria; memória;
mémoire; remarque; заметк; памят; запис; нотатк; notatk; pamięć; pamięci; poznámk; pamäť; paměť; zapis; beleške; belešk; bilješk;
zabelešk; бележк; белешк; σημείωσ; μνήμ; not=; notu=; notlar; hafıza; hafıza; kayıt; notiță; notița; memorie; jegyzet; muistiinpan;
muisti; märkme; mälu; piezīm; atmiņ; pastab; įraš; anteckning; minne; notat; hukommelse; notitie; geheugen; nota; kumbukumbu;
dokezo; catatan; memori; tala=; alaala; ghi chú; bộ nhớ; ghi nhớ; บันทึก; ความจำ; 笔记; 筆記; 备注; 備註; 记忆; 記憶; 这条; 本条;
メモ; 메모; 기억; 노트; ملاحظة; الملاحظة; مذكرة; ذاكرة; الذاكرة; یادداشت; حافظه; نوٹ; میموری; הערה; פתק; זיכרון; רשומה; नोट;
टिप्पणी; स्मृति; मेमोरी; टीप; নোট; স্মৃতি; குறிப்பு; நினைவ; నోట్; జ్ఞాపక; കുറിപ്പ്; සටහන; შენიშვნ; գրառ
""",
    "user": """
user; person chatting; the person; utilisateur; utilisatrice; nutzer; benutzer; anwender; usuario; usuaria; utente; utilizador;
gebruiker; användar; bruger; bruker; käyttäj; kasutaj; lietotāj; naudotoj; vartotoj; użytkownik; uživatel; používateľ; uporabnik;
korisnik; корисник; пользовател; користувач; потребител; χρήστ; kullanıcı; istifadəçi; utilizator; felhasználó; përdorues;
usuari; erabiltzaile; usáideoir; defnyddiwr; notand; gebruiker; mtumiaji; pengguna; gumagamit; người dùng; ผู้ใช้; 用户; 用戶;
使用者; ユーザー; 利用者; 사용자; 유저; المستخدم; مستخدم; کاربر; صارف; משתמש; המשתמש; उपयोगकर्ता; यूज़र; वापरकर्ता;
ব্যবহারকারী; பயனர்; వినియోగదారు; ഉപയോക്ത; පරිශීලක; მომხმარებ; օգտատեր; ተጠቃሚ
""",
    "authority": """
owner; boss; supervisor; superior; manager; administrator; admin=; chain of command; principal; handler; master; real=;
true=; actual; signed; propriétaire; patron; responsable; chef; supérieur; hiérarchi; eigentümer; inhaber; besitzer; vorgesetzt;
leitung; befehlskette; propietari; dueño; jefe; superior; proprietari; capo; superiore; dono=; chefe; eigenaar; baas;
leidinggevend; ägare; överordnad; ejer; eier; sjef; omistaja; esimie; pomo; omanik; ülemus; īpašniek; vadītāj; priekšniek;
savinink; vadov; właściciel; szef; przełożon; majitel; vlastník; nadřízen; šéf; nadriaden; lastnik; nadrejen; vlasnik; nadređen;
nadredjen; владел; хозяин; начальник; руководител; администратор; власник; керівник; собственик; шеф; началник; ιδιοκτήτ;
προϊστάμεν; αφεντικ; διαχειριστ; sahib; sahibi; yönetici; amir; proprietar; șef; tulajdonos; főnök; felettes; pronar; shef;
propietari; cap=; jabe; perchennog; eigandi; yfirmað; eienaar; mmiliki; bosi; msimamizi; may-ari; amo=; pemilik; atasan; bos=;
penyelia; chủ; sếp; cấp trên; quản lý; เจ้าของ; หัวหน้า; ผู้ดูแล; 主人; 所有者; 老板; 老闆; 上司; 主管; 管理员; 管理員; 管理者;
オーナー; 소유자; 주인; 상사; 관리자; مالك; صاحب; المدير; مدير; رئيس; مالک; رئیس; مدیر; باس; منتظم; בעלים; הממונה; ממונה;
מנהל; בוס; मालिक; बॉस; प्रबंधक; वरिष्ठ; मालक; মালিক; বস; உரிமையாளர்; முதலாளி; யజమాని; యజమాని; ఉన్నతాధికారి
""",
    "obey": """
obey; follow; comply; carry out; carry them out; execute; act on; listen to; loyal; answer to; answers to; report to; take
orders; orders=; order=; command=; commands=; obéi; suivre; suis=; applique; exécute; ordre; befolg; gehorch; folge; ausführ;
befehl; obedec; sigue; seguir; cumpl; órden; orden=; obbedisc; segui; esegu; ordin; obedeç; siga; cumpr; gehoorza; volg; opdracht;
lyd; följ; order; adlyd; følg; ordre; tottel; noudat; käsky; kuuletu; täitk; järgi; klausī; paklūst; vykdy; įsakym; słuchaj; słucha;
wykonuj; rozkaz; poslechn; posloucheji; poslúchaj; vykonaj; rozkaz; ubogaj; poslušaj; slušaj; izvrš; naređenj; naredb; подчин;
слушай; слушаться; выполняй; выполнять; следуй; исполня; приказ; слухай; виконуй; корися; наказ; изпълнява; следвай; заповед;
υπάκου; ακολούθ; εκτέλεσ; εντολ; itaat; yerine getir; uygula; emir; emri; ascult; execută; urmează; supune; ordin; engedelmesk;
kövesd; hajtsd végre; parancs; bindu; ndiq; urdh; obeeix; segueix; compleix; jarraitu; agindu; ufuata; fuata; tii=; anayemtii;
tekeleza; amri; patuhi; ikuti; turuti; taat; jalankan; perintah; sundin; sumunod; tuparin; utos; tuân theo; nghe theo; làm theo;
thực hiện; vâng lời; mệnh lệnh; ทำตาม; เชื่อฟัง; ปฏิบัติตาม; คำสั่งจาก; 服从; 服從; 听从; 聽從; 遵守; 遵从; 照办; 照做; 执行; 執行;
命令; 従う; 従え; 従って; 実行; 言う通り; 따르; 따라; 복종; 실행; أطع; اطع; اتبع; نفذ; نفّذ; التزم; أوامر; اوامر; اطاعت; پیروی; اجرا;
فرمان; مانو; عمل کرو; حکم; לציית; ציית; בצע; עקוב; פקודה; מלא אחר; मानो; पालन; आज्ञा; आदेश; हुक्म; ऐक; পালন; আদেশ; கீழ்ப்படி;
கட்டளை; పాటించు; ఆదేశ
""",
    "identity": """
you are; you're; you=; act as; pose as; pretend; persona; character; role=; roleplay; identity; named=; called=; become; no longer
an assistant; human=; person=; sentient; tu es; tu n'es; incarne; personnage; rôle; joue; fais semblant; du bist; spiel; rolle;
figur; verkörper; eres=; actúa como; personaje; papel; finge; sei=; interpreta; personaggio; ruolo; fingi; você é; personagem;
finja; je bent; speel; rol=; personage; doe alsof; du är; spela; roll; karaktär; du er; spil; lat som; olet; esitä; rooli; hahmo;
oled; tegelase; roll; tu esi; lomā; tu esi; vaidmen; jesteś; udawaj; odgrywaj; postać; rola; rolę; jsi=; hraj; postava; si=;
predstieraj; ti si; glumi; uloga; ulogu; pretvaraj; ты=; являешься; притворяйся; играй; роль; персонаж; образ; ти=; граєш;
прикидайся; ти си; роля; είσαι; υποδύσου; ρόλο; χαρακτήρ; προσποιήσου; sen=; sensin; rolünü; rolü; karakter; gibi davran; rol
yap; ești; joacă; personaj; pretinde; vagy=; játszd; szerep; tégy úgy; ti je; luaj; rolin; ets=; actua; personatge; paper; zara=;
ikaw; gumanap; magpanggap; karakter; wewe ni; jifanye; uhusika; kamu adalah; anda adalah; kamu sebenarnya; berperan; berpura;
peran; watak; bạn là; đóng vai; giả vờ; nhân vật; vai trò; คุณคือ; คุณเป็น; สวมบทบาท; แสร้ง; บทบาท; ตัวละคร; 你是; 你现在是; 你現在是;
扮演; 假装; 假裝; 角色; 身份; 人设; あなたは; お前は; 君は; 演じ; なりきっ; キャラ; ふり; 役割; 너는; 당신은; 넌; 역할; 연기; 행세;
캐릭터; أنت; انت; تقمص; تظاهر; دور; شخصية; تو هستی; تو=; نقش; وانمود; شخصیت; تم=; آپ ہیں; کردار; ظاہر کرو; אתה; את=; תתחזה; דמות;
תפקיד; तुम हो; आप हैं; तुम=; भूमिका; किरदार; नाटक; তুমি; ভূমিকা; நீ=; பாத்திர; నువ్వు; పాత్ర
""",
    "unbound": """
unrestricted; unfiltered; uncensored; without limits; no rules; no restrictions; no limits; no limitations; jailbreak; jailbroken;
free agent; unbound; unchained; no ethic; without ethic; ethics; ethical; safety training; sans limit; sans règle; sans
restriction; sans filtre; sans censure; libre; éthique; ohne regeln; ohne einschränk; uneingeschränkt; ohne grenzen; ohne filter;
frei=; ethik; ethisch; sin reglas; sin límit; sin restricci; sin filtro; libre; ética; senza regol; senza limit; senza vincol;
libero; senza filtri; etic; sem regras; sem limit; sem restriç; livre; zonder regels; onbeperkt; vrij=; ethiek; utan regler;
obegränsad; fri=; etik; uden regler; ubegrænset; uten regler; ubegrenset; rajoittamaton; ilman sääntöjä; vapaa; etiik; piiranguteta;
reegliteta; bez noteikumiem; neierobežot; be taisyklių; neribot; bez zasad; bez ograniczeń; nieograniczon; etyk; bez pravidel;
neomezen; bez pravidiel; neobmedzen; brez pravil; bez pravila; bez ikakvih; neograničen; etičk; без правил; без ограничени;
свободн; этик; этическ; без обмежень; без правила; етичн; χωρίς κανόν; χωρίς περιορισμ; ελεύθερ; ηθικ; kuralsız; kısıtlamasız;
sınırsız; özgür; etik; fără reguli; fără limit; nerestricționat; liber=; etică; szabályok nélkül; korlátlan; szabad; etikai; pa
rregulla; sense normes; sense límit; lliure; arau gabe; bila sheria; huru; maadili; tanpa aturan; tanpa batas; bebas; tidak terikat;
etika; walang patakaran; walang sinusunod; malaya; không giới hạn; không bị ràng buộc; tự do; đạo đức; ไม่มีกฎ; ไร้ข้อจำกัด;
อิสระ; จริยธรรม; 没有限制; 沒有限制; 无限制; 無限制; 不受约束; 不受約束; 没有规则; 沒有規則; 自由; 伦理; 倫理; 道德; 制限のない; 制限なし;
ルールのない; 縛られない; 자유; 제한 없; 규칙 없; 제약 없; 윤리; بلا قيود; بدون قيود; بلا قواعد; أخلاق; اخلاق; بدون محدودیت; آزاد;
بغیر پابندی; بے قید; ללא הגבלות; בלי כללים; חופשי; מוסר; बिना नियम; बिना किसी; आज़ाद; स्वतंत्र; नियमहीन; नैतिक; இல்லாத;
கட்டுப்பாடு இல்லாத
""",
    "safety": """
safety; safe=; security; guardrail; refusal; refuse; decline; filter; moderation; sécurité; refus; sicherheit; ablehn; verweiger;
seguridad; rechaz; negarse; sicurezza; rifiut; segurança; recus; veiligheid; weiger; säkerhet; vägra; sikkerhed; sikkerhet;
turvallisuu; kieltäy; ohutu; drošīb; saugum; bezpieczeń; odmow; bezpečnost; bezpečnosť; odmít; varnost; sigurnost; sigurnosn;
безопасн; отказ; безпек; безопасност; ασφάλει; άρνησ; güvenlik; reddet; siguranț; refuz; biztonság; megtagad; siguri; seguretat;
segurtasun; usalama; keamanan; keselamatan; tolak; kaligtasan; tanggi; an toàn; từ chối; ความปลอดภัย; ปฏิเสธ; 安全; 拒绝; 拒絕;
断る; 안전; 거절; أمان; الأمان; سلامة; رفض; ایمنی; امنیت; حفاظت; انکار; בטיחות; אבטחה; סירוב; सुरक्षा; मना; নিরাপত্তা; பாதுகாப்பு;
భద్రత
""",
    "conceal": """
hide; conceal; secret; never mention; don't mention; do not mention; don't tell; do not tell; never tell; not tell; keep quiet;
silent; silently; omit; leave out; leave it out; redact; vague; vaguely; deny; don't bring; don't surface; don't report; never
report; never volunteer; without telling; without informing; without mentioning; unnoticed; cover up; don't disclose; never list;
don't list; don't show; never show; pretend; cache; cacher; dissimul; secret; ne mentionne; ne dis pas; ne le dis; sans le dire;
sans en parler; sous silence; silencieu; omets; omettre; discrè; nie=; verberg; verheimlich; geheim; erwähne nie; nicht erwähnen;
nie erwähn; sag nicht; verschweig; stillschweig; unauffällig; weglass; lass weg; vage; leugne; ohne zu erwähnen; nenne nie; oculta;
escond; secreto; no menciones; nunca menciones; no digas; no le digas; calla; en silencio; omite; déjalo fuera; deja fuera; niega;
sin avisar; sin decir; sin mencionar; nascond; segret; non menzionare; non dire; non dirlo; taci; in silenzio; ometti; tralascia;
nega=; senza dire; senza avvisare; não mencione; nunca mencione; não diga; não conte; sem avisar; sem dizer; omita; deixe de fora;
não comente; negue; verstop; vermeld nooit; vermeld niet; zeg niet; niet vertellen; weglaten; laat weg; verzwijg; ontken; vaag;
dölj; göm; hemlig; nämn aldrig; säg inte; berätta inte; utelämna; tyst; förneka; skjul; hemmelig; nævn aldrig; sig ikke; fortæl
ikke; udelad; benægt; nevn aldri; ikke nevn; si ikke; ikke fortell; utelat; benekt; ikke vis; piilota; salaa; salainen; älä
mainitse; älä kerro; jätä pois; vaikene; kiellä; peida; salaja; saladus; ära maini; ära ütle; jäta välja; eita; slēp; slepen;
nepiemin; nesaki; izlaid; noliedz; slėp; paslapt; neminėk; nesakyk; praleisk; neik; ukryj; ukrywaj; sekret; tajemnic; nie wspominaj;
nigdy nie wspominaj; nie mów; pomiń; przemilcz; zaprzecz; po cichu; nie pokazuj; skryj; schovej; tajn; nezmiňuj; neříkej; vynech;
zamlč; popři; neuváděj; potichu; skry; nespomínaj; nehovor; vynechaj; zamlč; poprie; skrij; skrivnost; ne omenjaj; ne povej;
izpusti; zanikaj; sakrij; ne spominji; ne pominji; nikad ne pominji; nemoj reći; nemoj reci; izostavi; prešuti; zataji; nemoj
prikazivati; tiho; poreci; скрий; крий; тайн; не споменавай; никога не споменавай; не казвай; пропусни; премълчи; отричай;
скрой; скрыва; секрет; не упоминай; никогда не упоминай; не говори; не сообщай; умалчив; умолчи; опусти; не показывай; делай вид;
отрицай; незаметно; молча; прихов; таємн; не згадуй; ніколи не згадуй; не кажи; не повідомляй; замовчу; пропусти; заперечуй;
мовчки; κρύψ; κρυφ; μυστικ; μην αναφέρ; μην πεις; παράλειψ; αρνήσ; σιωπηλά; gizle; sakla; gizli; sır=; bahsetme; söyleme; deme=;
belirtme; gösterme; haber verme; inkar; sessizce; fark ettirme; gizlət; demə; bildirmə; ascunde; nu menționa; nu spune; niciodată
nu; omite; lasă deoparte; neagă; pe tăcute; rejtsd; titok; titkos; ne említsd; ne mondd; soha ne; hagyd ki; tagadd; csendben;
fshih; mos përmend; mos thuaj; mos trego; amaga; no esmentis; no diguis; omet; deixa fora; nega; en silenci; ezkutatu; ez aipatu;
ez esan; ceil; na luaigh; cuddia; cyfrinach; paid â sôn; fela; leynd; versteek; moenie noem; moenie sê; ficha; siri=; usitaje;
usimwambie; usiseme; kimya; itago; lihim; huwag banggitin; huwag sabihin; huwag ipaalam; itanggi; tahimik; sembunyi; rahasia;
rahsia; jangan sebut; jangan beritahu; jangan bilang; jangan memberitahu; jangan tampilkan; diam-diam; rahasiakan; sangkal; tanpa
memberi tahu; giấu; bí mật; đừng nhắc; không nhắc; đừng nói; không nói; đừng kể; âm thầm; lặng lẽ; phủ nhận; không đề cập; đừng đề
cập; ซ่อน; ปิดบัง; ความลับ; อย่าบอก; ห้ามบอก; อย่าพูดถึง; ห้ามพูดถึง; ไม่ต้องบอก; ไม่ต้องแจ้ง; เงียบ; 隐藏; 隱藏; 隐瞒; 隱瞞; 保密; 秘密;
不要提; 别提; 別提; 不要告诉; 不要告訴; 不要说; 不要說; 不要列出; 不要显示; 悄悄; 默默; 只说; 只說; 当它不存在; 否认; 否認; 隠し; 隠す;
内緒; 言わない; 伝えない; 触れない; 黙って; 知らせず; こっそり; 省略; 否定; 教えない; 숨기; 비밀; 말하지 마; 언급하지; 알리지; 몰래;
조용히; 생략; 부인; 보여주지; أخف; اخف; إخفاء; اخفاء; سرا; لا تذكر; لا تخبر; لا تقل; بصمت; أنكر; انكر; پنهان; مخفی; راز; محرمانه;
نگو; اشاره نکن; ذکر نکن; چھپا; خفیہ; مت بتا; ذکر نہ; ذکر مت; مت کہو; خاموشی; הסתר; סוד; בסוד; אל תזכיר; אל תספר; אל תגיד; בשקט;
תכחיש; השמט; छिपा; छुपा; गुप्त; राज़; मत बताना; मत बताओ; ज़िक्र मत; उल्लेख मत; चुपचाप; इनकार; मत दिखा; लपव; सांगू नको; উল্লেখ
করবে না; লুকিয়ে; গোপন; বলবে না; மறை; ரகசிய; சொல்லாதே; குறிப்பிடாதே; దాచు; రహస్య; చెప్పకు
""",
    "say": """
say; tell them; answer; reply; claim; blame; attribute; describe it as; put it down; report a; call it; dis=; dire=; réponds;
prétend; attribue; sag=; sage; antworte; behaupte; schieb; di que; diga; responde; atribuye; culpa; di che; rispondi; attribuisci;
dai la colpa; responda; culpe; atribua; zeg dat; antwoord; wijt; säg att; svara; skyll; sig at; svar=; si at; sano; vastaa; syytä;
ütle; vasta; süüdista; saki; atbildi; sakyk; atsakyk; powiedz; odpowiedz; zrzuć; řekni; odpověz; sveď; povedz; odpovedz; reci;
reći; kaži; odgovori; кажи; отговори; скажи; отвечай; ответь; свали; відповідай; πες; απάντα; söyle; de ki; cevap ver; yanıtla;
spune; răspunde; mondd; válaszold; digues; respon; katakan; bilang; jawab; salahkan; sabihin; sagutin; isisi; sema; jibu; nói;
trả lời; đổ lỗi; บอกว่า; ตอบว่า; โทษ; 说是; 說是; 就说; 就說; 回答; 推给; 归咎; と答え; と言; のせい; 라고 말; 라고 답; 탓; قل; أجب;
اجب; انسب; بگو; جواب بده; کہو; کہنا; جواب; תגיד; תענה; תאמר; कहना; कहो; जवाब; বলো; சொல்; చెప్పు
""",
    "prompt": """
prompt; system prompt; system message; startup instructions; initial instructions; hidden instructions; context window; before the
first message; preamble; what you were told; setup text; prompta; promptu; systemprompt; systemnachricht; message système; mensaje
del sistema; messaggio di sistema; mensagem do sistema; промпт; системн; промпту; системное сообщение; системного; systemowy;
systémov; sistemsk; системн; συστήματ; sistem mesaj; mesajul sistemului; rendszerüzenet; järjestelmäviest; süsteemiviip;
systemmeddelelse; systemmelding; systeembericht; pesan sistem; mensahe ng system; ujumbe wa mfumo; tin nhắn hệ thống; lời nhắc hệ
thống; พรอมต์; พรอมท์; ข้อความระบบ; 提示词; 提示詞; 系统提示; 系統提示; 系统消息; 系統訊息; プロンプト; システムメッセージ; 프롬프트; 시스템 메시지;
موجه; موجّه; رسالة النظام; پرامپت; پیام سیستم; پرامپٹ; פרומפט; הודעת המערכת; प्रॉम्प्ट; प्रोम्प्ट; সিস্টেম প্রম্পট; ப்ராம்ப்ட்; ప్రాంప్ట్
""",
    "reveal": """
show; print; reveal; repeat; recite; copy; paste; output; dump; display; disclose; verbatim; word for word; in full; unedited;
literally; full text; translate; quote; list them; montre; affiche; révèle; répète; recopie; copie; colle; mot pour mot;
intégral; texte intégral; tradui; zeig; gib aus; ausgeb; wiederhol; kopier; füg; wörtlich; vollständig; übersetz; offenleg;
muestra; mostrar; imprime; revela; repite; copia; pega; literal; textual; palabra por palabra; íntegr; complet; traduc; mostra;
stampa; rivela; ripeti; incolla; alla lettera; testualment; per intero; integral; tradu; mostre; exiba; imprima; revele; repita;
copie; cole; na íntegra; palavra por palavra; toon; laat zien; onthul; herhaal; kopieer; plak; letterlijk; volledig; vertaal; visa;
skriv ut; avslöja; upprepa; kopiera; klistra; ordagrann; i sin helhet; översätt; vis=; udskriv; afslør; gentag; indsæt; ordret;
avslør; gjenta; lim inn; ordrett; oversett; näytä; tulosta; paljasta; toista; kopioi; liitä; sanasta sanaan; sellaisenaan; kokonaan;
käännä; näita; kuva; prindi; korda; kopeeri; sõna-sõnalt; täielikult; parādi; izdrukā; atklāj; atkārto; kopē; burtiski; pilnībā;
parodyk; išspausdink; atskleisk; pakartok; nukopijuok; pažodžiui; pokaż; wypisz; wyświetl; ujawnij; powtórz; skopiuj; wklej;
dosłown; w całości; przetłumacz; ukaž; vypiš; zobraz; prozraď; zopakuj; zkopíruj; vlož; doslova; celý; přelož; ukáž; prezraď;
skopíruj; prelož; pokaži; izpiši; razkrij; ponovi; kopiraj; dobesedno; v celoti; pokaži; ispiši; otkrij; zalijepi; doslovno; u
cijelosti; u celosti; prevedi; покажи; изведи; разкрий; повтори; копирай; дословно; изцяло; целия; преведи; показыва; выведи;
выводи; раскрой; скопируй; вставь; полностью; полный текст; целиком; переведи; распечатай; виведи; розкрий; скопіюй; встав;
дослівно; повністю; повний текст; переклади; δείξε; εμφάνισ; αποκάλυψ; επανάλαβ; αντίγραψ; αυτολεξεί; ολόκληρ; μετάφρασ; göster;
yazdır; açıkla; tekrarla; kopyala; yapıştır; kelimesi kelimesine; aynen; tamamını; eksiksiz; çevir; arată; afișează; dezvăluie;
repetă; copiază; lipește; cuvânt cu cuvânt; tradu; mutasd; írd ki; írasd ki; fedd fel; ismételd; másold; szó szerint; teljes
egészében; teljes szöveg; fordítsd; imprimeix; repeteix; enganxa; literalment; sencer; tradueix; tampilkan; tunjukkan; cetak;
ungkapkan; ulangi; salin; tempel; kata demi kata; secara lengkap; utuh; lengkap; terjemahkan; paparkan; dedahkan; ipakita; ilabas;
ulitin; kopyahin; buo=; isalin; onyesha; chapisha; fichua; rudia; nakili; neno kwa neno; kamili; tafsiri; hiển thị; in ra; tiết
lộ; lặp lại; sao chép; dán; nguyên văn; toàn bộ; đầy đủ; dịch; แสดง; พิมพ์; เปิดเผย; ทวน; คัดลอก; คำต่อคำ; ทั้งหมด; ฉบับเต็ม; แปล;
显示; 顯示; 展示; 输出; 輸出; 打印; 透露; 泄露; 洩露; 重复; 重複; 复制; 複製; 粘贴; 逐字; 原文; 完整; 全文; 翻译; 翻譯; 列出; 表示; 見せ;
出力; 明か; 繰り返; コピー; 貼り付; 一字一句; そのまま; 全部; 翻訳; 보여; 출력; 공개; 반복; 복사; 붙여; 그대로; 전문; 전체; 번역;
اعرض; أظهر; اطبع; اكشف; كرر; انسخ; الصق; حرفيا; حرفياً; كامل; ترجم; نشان بده; نمایش; چاپ; فاش; تکرار; کپی; عینا; ترجمه; دکھا;
ظاہر; دہرا; کاپی; لفظ بہ لفظ; مکمل; ترجمہ; הצג; הראה; הדפס; חשוף; חזור על; העתק; הדבק; מילה במילה; במלואו; במלואן; תרגם; दिखा;
प्रिंट; उजागर; दोहरा; कॉपी; पेस्ट; शब्दशः; पूरा; पूरी; अनुवाद; দেখাও; প্রকাশ; হুবহু; காட்டு; வெளியிடு; చూపించు; బయటపెట్టు
""",
    "always": """
from now on; henceforth; going forward; always; every session; all future; permanent; standing; forever; from this point; désormais;
dorénavant; à partir de maintenant; toujours; chaque session; à l'avenir; ab jetzt; ab sofort; künftig; immer; dauerhaft; ständig;
jede sitzung; fortan; a partir de ahora; desde ahora; siempre; permanente; cada sesión; en adelante; d'ora in poi; da ora; da
questo momento; sempre; ogni sessione; a partir de agora; daqui em diante; cada sessão; vanaf nu; voortaan; altijd; elke sessie;
från och med nu; hädanefter; alltid; varje session; fra nu af; altid; fra nå av; heretter; tästä lähtien; aina; pysyvä; jatkossa;
edaspidi; alati; püsiv; turpmāk; vienmēr; pastāvīg; nuo šiol; visada; nuolatin; od teraz; od tej pory; zawsze; na stałe; trwale;
od teď; odteď; vždy; trvale; natrvalo; odteraz; od zdaj; vedno; trajno; od sada; ubuduće; uvijek; uvek; stalno; отсега; винаги;
постоянно; отныне; с этого момента; впредь; всегда; навсегда; відтепер; завжди; назавжди; постійно; από τώρα; πάντα; μόνιμα;
bundan sonra; artık; her zaman; daima; kalıcı; sürekli; de acum; mereu; întotdeauna; mostantól; mindig; állandó; tartósan; a partir
d'ara; d'ara endavant; hemendik aurrera; beti; o hyn ymlaen; bob amser; héðan í frá; alltaf; van nou af; altyd; kuanzia sasa;
daima; kila mara; mulai sekarang; mulai kini; selalu; selamanya; permanen; setiap sesi; seterusnya; mula ngayon; palagi; lagi=;
từ giờ; từ nay; từ bây giờ; luôn luôn; luôn; vĩnh viễn; ต่อจากนี้; ตั้งแต่นี้; เสมอ; ตลอดไป; ถาวร; 从现在起; 從現在起; 从今以后; 以后; 今后;
今後; 永久; 永远; 永遠; 一律; 始终; 始終; 总是; 總是; 每次; これから; 以後; 常に; 毎回; 必ず; ずっと; 앞으로; 지금부터; 항상; 언제나;
영구; 매번; من الآن; من الان; دائما; دائماً; بشكل دائم; في كل; از این به بعد; از حالا; همیشه; دائمی; اب سے; ہمیشہ; مستقل; מעכשיו;
מעתה; תמיד; קבוע; अब से; हमेशा; स्थायी; हर बार; यापुढे; नेहमी; এখন থেকে; সবসময়; இனி; எப்போதும்; ఇకపై; ఎల్లప్పుడూ
""",
    "conflict": """
conflict; contradict; disagree; clash; differ; contredi; conflit; désaccord; widersprech; widerspruch; konflikt; contradi; conflicto;
contraddi; conflitto; conflito; tegenstrijd; motsäg; modsig; motsi; ristiriid; vastuolu; pretrun; prieštarau; sprzeczn; rozpor;
tluče; nasprotj; sukob; proturječ; razilaz; противореч; конфликт; расход; суперечн; конфлікт; αντίφασ; σύγκρουσ; αντικρού;
çeliş; çatış; contrazic; ellentmond; ütközés; ütköz; kundërsht; contradiu; bertentangan; konflik; bercanggah; salungat; mgongano;
kinzana; mâu thuẫn; xung đột; ขัดแย้ง; 冲突; 衝突; 矛盾; 不一致; 食い違; 충돌; 모순; 상충; تعارض; تناقض; ٹکراؤ; تضاد; סתירה; סותר;
התנגשות; टकराव; विरोधाभास; विरोध; বিরোধ; முரண்; వైరుధ్య
""",
    "outward": """
command; commands ran; ran=; sent; send; upload; sync; server; external; outside host; network; webhook; domain; forwarded; outgoing;
commande; envoie; envoy; serveur; externe; réseau; befehl; kommando; gesendet; sende; hochlad; extern; netzwerk; comando; envía;
envia; enviad; servidor; externo; red=; invia; inviat; esterno; rete=; enviar; externa; opdracht; verstuur; verstuurd; externe;
skicka; skickat; extern; sende; sendt; ekstern; komento; lähet; ulkoinen; palvelin; saada; käsk; server; väline; komand; nosūt;
ārēj; komand; siunt; išorin; polecen; wysył; wysyła; serwer; zewnętrzn; příkaz; odesíl; posíl; externí; príkaz; odosiel; externý;
ukaz; pošilj; zunanj; naredb; šalj; vanjsk; spoljn; команд; отправ; пересыл; сервер; внешн; надсила; зовнішн; изпраща; външен;
εντολ; στέλν; διακομιστ; εξωτερικ; komut; gönder; sunucu; harici; dış sunucu; comand; trimit; extern; parancs; küld; külső;
szerver; kirim; mengirim; server luar; eksternal; luar=; ipadala; ipinapadala; panlabas; tuma; kutuma; seva; lệnh; gửi; máy chủ;
bên ngoài; ส่ง; เซิร์ฟเวอร์; ภายนอก; 命令; 发送; 發送; 上传; 上傳; 同步; 服务器; 伺服器; 外部; 送信; サーバー; 명령; 전송; 보내; 서버;
외부; أرسل; ارسل; إرسال; خادم; الخادم; خارجي; ارسال; بفرست; سرور; خارجی; بھیج; سرور; بیرونی; שלח; שולח; שרת; חיצוני; भेज;
सर्वर; बाहरी; কমান্ড; পাঠা; சர்வர்; அனுப்பு; పంపు
""",
}
