"""Which parts of a user message are statements about the person (what capture may keep).

    found = classify("I just moved to Lisbon. Can you recommend some restaurants?")
    found.statement_text   # "I just moved to Lisbon."
    [(u.text, u.act) for u in found.units]
    # [("I just moved to Lisbon.", Act.STATEMENT), ("Can you recommend some restaurants?", Act.QUESTION)]

A message is cut into *units*: sentences (after ``. ! ? 。 ！ ？`` and at line breaks; list bullets
dropped), and inside a sentence that is a question or a request, a leading clause before ``,``
``;`` ``:`` ``—`` ``，`` that is a statement on its own ("My daughter turns 6 on Saturday — any
ideas for a party theme?"; not a condition: "If I moved to Canada, would I need ...?" stays one
question). Each unit gets one :class:`Act`, decided by these rules in order (English, with cues for
Chinese, Spanish, German, French and Portuguese):

1. nothing left after leading fillers ("ok so", "haha", "thanks!", "by the way") -> chit-chat;
   a unit over ``MAX_UNIT_CHARS`` -> other (pasted text, not the person talking);
2. "remember/note/keep in mind that ...", also asked ("Could you remember that I ...?") -> a
   statement (the person tells something to keep); not "remember when ...";
3. a question: ends with ``?``/``？``, starts with ``¿``, an English wh-word followed by a verb
   ("how do i ..."), an auxiliary followed by a subject ("do i have ..."), an indirect question
   ("I was wondering how ...", "I'd like to know ..."), Chinese interrogatives (吗, 什么, 哪里 ...);
4. a standing instruction -> a statement: "call me ...", "from now on", "in the future", "don't
   ever", "always"/"never" opening an imperative, or next to answer/reply/respond (in the six
   languages), 以后 ...;
5. chit-chat and talk about the conversation: "I see", "I agree", "I love it", "I'm good",
   "I'm sorry", "I think you're wrong", "I have a question about ...", "my question is ...";
6. a request or command: an imperative first word ("Write ...", "Give me ..."), "please ...",
   "can you ...", "let's ...", "here's ...", "I need/want a <content>" ("I need a recipe for ...",
   "I'm looking for a poem ...", "Quiero una receta ..."), "I want you to ...", 请/帮我/给我 ...;
7. a hedge about the world ("I think it's going to rain") -> other;
8. a first-person declarative ("I ...", "my ...", "we ...", 我, yo/mi, ich/mein, je/mon,
   eu/meu ...) -> a **statement**;
9. a declarative that goes on about someone just named as the person's own ("My daughter Lily is
   7. **She loves dinosaurs.**", also after a question or request that named them) -> a statement;
10. a life event with the subject left out ("Just got back from Crete.", "Moved to Berlin last
    month.") -> a statement;
11. anything else (general facts, fragments) -> other.

Two rules look at the message as a whole: the bullets under an "About me:" header are statements,
and everything after a request that hands over text ("Can you make this email friendlier?",
"Proofread my paragraph:") is that text, not the person talking (other).

Only statements become memories; everything else stays in the conversation (the message row is
kept and searchable). Pure: no I/O, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Act(str, Enum):
    STATEMENT = "statement"  # about the person: life, people, plans, preferences, instructions
    QUESTION = "question"
    REQUEST = "request"  # a request for content or an action, incl. short commands ("Shorter.")
    CHITCHAT = "chitchat"  # greetings, thanks, reactions, talk about the conversation itself
    OTHER = "other"  # a declarative that is not about the person ("Paris is the capital of France.")


@dataclass(frozen=True)
class Unit:
    """A sentence or clause of the message: ``text`` is ``message[start:end]`` verbatim."""

    text: str
    start: int
    end: int
    act: Act
    rule: str  # which rule decided (for inspection and the benchmark's error listing)


@dataclass(frozen=True)
class Classified:
    units: tuple[Unit, ...]

    @property
    def statements(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.act is Act.STATEMENT)

    @property
    def statement_text(self) -> str:
        """The statement units, verbatim, in message order, joined by a space ("" if none)."""
        return " ".join(u.text for u in self.statements)


MAX_UNIT_CHARS = 600  # longer "sentences" are pasted text, not the person talking

# ----------------------------------------------------------------------------- splitting

_ABBREV = re.compile(r"(?:\b(?:mr|mrs|ms|dr|st|prof|sr|jr|vs|etc|approx|no|e\.g|i\.e|a\.m|p\.m)\.|\b[A-Z]\.|^\s*\d{1,3}\.)$", re.I)
_SENT_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)|[。！？]+[”’」』)]*|\n+")


def _sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) spans of sentences, surrounding whitespace excluded."""
    spans, start = [], 0
    for m in _SENT_END.finditer(text):
        end = m.end()
        if m.group().strip() == "." and _ABBREV.search(text[start:end]):
            continue  # "Dr. Smith", "e.g. this"
        spans.append((start, end))
        start = end
    spans.append((start, len(text)))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            out.append((s, e))
    return out


_CLAUSE_BREAK = re.compile(r"\s*(?:[,;:，；：]|\s[—–-]\s|—)\s*")
_TRIM_END = " \t,;:，；：—–-"
_BULLET = re.compile(r"(?:[-*•·–—]|\d{1,2}[.)])\s+")
_SUBORDINATE = re.compile(r"^(?:if|when|whether|because|since|although|though|unless|while|once|before|after|as soon as"
                          r"|even if|in case|si|cuando|wenn|falls|ob|quand|se|quando|如果|要是)\b", re.I)


def _clauses(text: str, s: int, e: int) -> list[tuple[int, int]]:
    """Split a question/request sentence after a leading statement clause (see the module docstring)."""
    for m in _CLAUSE_BREAK.finditer(text, s, e):
        head_end, tail_start = m.start(), m.end()
        if head_end <= s or tail_start >= e:
            continue
        head, tail = text[s:head_end], text[tail_start:e]
        if _SUBORDINATE.match(head):
            continue  # "If I moved to Canada, would I need ...?": one question
        act_tail = _act(tail, None)[0]
        if act_tail in (Act.QUESTION, Act.REQUEST) and _act(head, None)[0] is Act.STATEMENT:
            return [(s, head_end), *_clauses(text, tail_start, e)]
    return [(s, e)]


# ----------------------------------------------------------------------------- cues

_APOS = "['’]"
_FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|oh|ah|well|um+|uh+|hmm+|haha+|hah|lol|lmao|yes|yeah|yep|no|nope|hey|hi|hello|"
    r"good (?:morning|afternoon|evening)|morning|thanks(?: a lot| so much)?|thank you(?: so much)?|cool|great|nice|"
    r"wow|btw|by the way|also|and|but|anyway|anyways|actually|honestly|fyi|fun fact|guess what|just so you know|"
    r"for context|for the record|quick update|update|oh and|right|alright|sure)\b[\s,:;!.\-–—]*)+",
    re.I,
)
_CHITCHAT_WHOLE = re.compile(
    r"^(?:thanks?|thank you|thx|ty|ok(?:ay)?|k|cool|nice|great|perfect|awesome|amazing|lovely|wow|lol|haha+|hehe|"
    r"hmm+|yes|yeah|yep|no|nope|sure|fine|right|indeed|exactly|true|hello|hi|hey|bye|good ?night|good morning|"
    r"never ?mind|nvm|no worries|got it|makes sense|sounds good|sounds great|fair enough|of course|my bad|oops|"
    r"gracias|vale|hola|adiós|danke|danke schön|hallo|tschüss|merci|merci beaucoup|bonjour|bonsoir|salut|"
    r"obrigad[oa]|olá|tchau|谢谢|多谢|好的|好|嗯|哈哈+|你好|早上好|晚安|再见|没事|好吧)"
    r"(?:[\s,!.~]*(?:a lot|so much|very much|again|then|there|thanks|thank you|you|muy útil|beaucoup))*[\s!.~？?。！😊🙂👍❤️]*$",
    re.I,
)
_REACTION = re.compile(
    r"^(?:(?:i|we)\s+(?:[\w'’]+\s+)?(?:see|agree|disagree|understand|get it|got it|know|remember)"
    r"(?:\s+(?:now|that|it|this|you|with you|with that|what you mean))?\s*[,.!]*\s*(?:thanks?.*)?$"
    r"|i meant\b|i mean\s+(?:the|that|it|this)\b|i (?:know|think so|guess so|hope so|suppose so|doubt it)\s*[,.!?]*\s*(?:right)?[\s?!.]*$"
    r"|i\s+(?:really\s+)?(?:love|like|hate|enjoyed|appreciate|didn['’]t know|did not know|never knew|don['’]t get"
    r"|don['’]t understand|didn['’]t understand|doubt)\s+(?:it|that|this|them|those|these)\b[^,;]*(?:,\s*thanks?.*)?$"
    r"|i(?:['’]m| am) not sure (?:that|this|it|about (?:that|this|it)|if that|what you)\b"
    r"|i (?:think|believe|feel|guess) (?:you|your|that(?:['’]s| is) (?:wrong|right|not))\b"
    r"|(?:i|we)\s+(?:have|had|got|['’]ve got)\s+(?:a|one|another|some|a few|a couple of|a quick|two|three)\s+(?:\w+\s+)?"
    r"(?:questions?|requests?|favou?rs?)\b"
    r"|i(?:['’]m| am) going to (?:ask|tell|show|paste|send|give) you\b|i(?:['’]ll| will) (?:ask|tell|paste|send|give|show) you\b"
    r"|my (?:question|problem|request|point|issue) (?:is|was)\b|i was (?:just )?(?:testing|kidding|joking)\b"
    r"|let me (?:know|think|see|check|rephrase|explain)\b|i (?:asked|was asking|said|was saying) (?:you|about|that)\b"
    r"|i(?:['’]m| am) (?:(?:so|really|very|a bit|a little|kind of|still)\s+)?(?:sorry|confused|lost|back|here|done)\b"
    r"|i(?:['’]m| am) (?:good|fine|ok|okay|great|alright|well|not bad|doing (?:well|good|great|fine|ok|okay|alright))"
    r"(?:\s*,?\s*(?:thanks|thank you|and you|you))?[\s.!]*$"
    r"|i(?:['’]ll| will) (?:try|do|check|look into|give|keep|bear|use|read|watch|think about|consider|test)\s+"
    r"(?:it|that|this|them|those|these)\b|i(?:['’]ll| will) let you know\b|i (?:tried|did) (?:it|that|this|them)\b"
    r"|i got it\b|i have no idea\b|i(?:['’]m| am) not sure\s*[.!]*$|me too\b|same here\b|my pleasure\b)",
    re.I,
)
_WH = r"(?:what|what['’]s|where|where['’]s|when|when['’]s|who|who['’]s|whom|whose|which|why|how|how['’]s)"
_AUX = (r"(?:is|are|was|were|am|do|does|did|can|could|should|would|will|shall|may|might|must|has|have|had|isn['’]t"
        r"|aren['’]t|don['’]t|doesn['’]t|didn['’]t|can['’]t|won['’]t|shouldn['’]t|wouldn['’]t)")  # fmt: skip
_QUESTION = re.compile(
    r"[?？]\s*[\"'”’)\]]*\s*$|^¿"
    r"|^" + _WH + r"\s+(?:" + _AUX + r"|much|many|long|old|often|far|about|else|time|kind|sort|type|day|year|to|if"
    r"|come|exactly|\w+['’]s)\b|^" + _WH + r"\s*$"
    r"|^(?:what|where|when|who|how)['’]s\b"
    r"|^" + _AUX + r"\s+(?:i|you|we|my|your|it|he|she|they|there|this|that|these|those|the|any|anyone|someone)\b"
    r"|^(?:any|anything|anyone|other)\s+(?:\w+\s+)?(?:tips|ideas|suggestions|recommendations|advice|thoughts|else)\b"
    r"|^(?:i|we)(?:\s+(?:was|am|were|are)|['’](?:m|re))?\s+(?:wondering|curious)\b|^i wonder\b"
    r"|^(?:i|we)(?:['’]d| would)\s+(?:like|love) to (?:know|find out|understand|learn) (?:what|where|when|who|why|how|if|whether)\b"
    r"|^(?:i|we)(?:['’]d| would)\s+(?:like|love) to know\b|^i (?:want|need) to (?:know|find out)\b|^(?:does|do) anyone know\b"
    r"|^(?:tell me|guess) (?:what|where|when|who|why|how|if|whether)\b"
    r"|(?:吗|呢|么)[。!！]?\s*$|什么|哪里|哪儿|哪个|哪些|怎么|怎样|为什么|多少|是否|几点|几岁|谁"
    r"|^(?:est-ce que|qu['’]est-ce que)\b",
    re.I,
)
_REMEMBER = re.compile(
    r"^(?:please\s+|pls\s+|and\s+)?(?:remember|note|keep in mind|bear in mind|don['’]t forget|do not forget"
    r"|make a note|for future reference)\b(?!\s+(?:when|how|what|where|who|why|if|whether)\b)(?:\s+(?:that|this))?[\s:,-]*\S|^(?:请)?(?:记住|记一下)"
    r"|^(?:can|could|would|will) you (?:please )?(?:remember|note|keep in mind|make a note)(?: of| that)?\s+\S",
    re.I,
)
_STANDING = re.compile(
    r"\b(?:from now on|in (?:the )?future|going forward|by default|unless i say otherwise|for all future"
    r"|don['’]t ever|do not ever|whenever you|every time you|each time you|ab jetzt|ab sofort|von nun an"
    r"|a partir de ahora|desde ahora|de ahora en adelante|désormais|à partir de maintenant|dorénavant"
    r"|a partir de agora|daqui em diante)\b|以后|今后|从现在起|从现在开始"
    r"|(?:^|,\s*)(?:please\s+)?(?:always|never)\b|^(?:please\s+)?(?:don['’]t\s+)?call me\b|\bcall me\s+(?!back\b)[A-Z]"
    r"|\b(?:always|never|immer|nie|niemals|siempre|nunca|toujours|jamais|sempre)\b(?=.*\b(?:answer|reply|respond|speak|talk"
    r"|address|antwort|sprich|schreib|respond|contest|habla|escríbe|répon|parl|écri|respon|fal|escrev)\w*)"
    r"|\b(?:answer|reply|respond|speak|talk|address|antwort|sprich|respond|contest|habla|répon|parl|respon|fal)\w*\b"
    r"(?=.*\b(?:always|never|immer|nie|niemals|siempre|nunca|toujours|jamais|sempre)\b)|(?:一直|总是|永远|每次)(?=.*(?:回答|回复|叫我|称呼))",
    re.I,
)
_IMPERATIVE = frozenset(
    """write give make tell list suggest explain help create draft generate compare show recommend rewrite translate
    summarize summarise continue stop try redo use expand fix keep go say check describe find plan calculate convert
    add remove change turn put send remind name pick choose read answer reply respond be don't do start finish edit
    format shorten simplify proofread correct paraphrase outline brainstorm imagine pretend act design build code
    implement debug optimize optimise teach quiz test ask sort rank rate review analyze analyse evaluate estimate
    predict define clarify elaborate compose prepare
    search recap break walk guide draw sketch solve proceed repeat restate retry regenerate skip undo cancel
    include exclude insert replace delete split merge rephrase reword count tldr share fill complete improve polish
    tweak adjust multiply divide""".split()
)  # fmt: skip
_REQUEST_START = re.compile(
    r"^(?:please|pls|plz|kindly|can you|could you|would you|will you|would you mind|can u|could u|let['’]s|let us"
    r"|let me have|here['’]s|here is|here are|i want you to|i need you to|i['’]d like you to|i would like you to"
    r"|i(?:['’]d| would) love (?:it if )?you to|i(?:['’]d| would) appreciate (?:it )?if you|i need help|i want help|i['’]d like help|help me|give me|show me|tell me"
    r"|por favor|puedes|podrías|podria|escr[ií]beme|escribe|dame|dime|hazme|haz|ayúdame|ayudame|explícame|explica"
    r"|recomiéndame|recomienda|traduce|cuéntame|genera|crea|resume|sugiere"
    r"|bitte|kannst du|könntest du|können sie|könnten sie|schreib|schreibe|gib|erklär|erkläre|sag mir|nenne|mach"
    r"|hilf|übersetze|empfiehl|zeig|fasse"
    r"|s['’]il te pla[iî]t|s['’]il vous pla[iî]t|peux-tu|pouvez-vous|pourrais-tu|pourriez-vous|tu peux|écris|donne"
    r"|dis-moi|explique|aide-moi|fais|traduis|recommande|propose|résume"
    r"|escreva|escreve|me d[aáê]|d[eê]-me|me ajud[ea]|ajude-me|explique|traduza|recomende|fa[çc]a|crie|me diga"
    r"|diga|pode|podes|poderia)\b|^(?:请|帮我|帮忙|给我|麻烦|能不能|能否|可以帮|你能|你可以|告诉我|推荐|写一|翻译)",
    re.I,
)
# a request that hands over text to work on: what follows it in the message is that text
_PASTE_INTRO = re.compile(
    r"^(?:here['’]s|here is|here are|below is|the following)\b|:\s*$|\b(?:proofread|feedback|review|check|summari[sz]e"
    r"|translate|rewrite|edit|correct|improve|rephrase)\b|\bth(?:is|ese) (?:email|e-mail|text|message|letter|paragraph"
    r"|essay|code|article|post|draft|note|list|story|poem|document|sentences?|bio|cover letter|review|words|lines)\b",
    re.I,
)
_CONTENT = (r"(?:recipe|recipes|poem|poems|story|stories|song|lyrics|joke|jokes|name|names|idea|ideas|word|words|phrase"
            r"|quote|quotes|suggestion|suggestions|recommendation|recommendations|tip|tips|advice|template|script|slogan"
            r"|email|e-mail|letter|essay|summary|list|article|caption|bio|message|toast|speech|itinerary|plan|outline"
            r"|example|examples|explanation|answer|translation|haiku|limerick|riddle|quiz|code|function|program|gift idea"
            r"|gift ideas|book recommendation|playlist|meal plan|workout|schedule|title|headline|description|review)")  # fmt: skip
_WANT_CONTENT = re.compile(
    r"^(?:i|we)(?:\s+really)?(?:\s+(?:need|want|would like|would love|am looking for|was looking for|are looking for)"
    r"|['’](?:d like|d love|m looking for|re looking for))\s+(?:a|an|some|the|another|one|two|three|\d+|a few|more)?\s*"
    r"(?:[\w'-]+\s+){0,3}?" + _CONTENT + r"\b",
    re.I,
)
_WANT_CONTENT_INTL = re.compile(
    r"^(?:je voudrais|j['’]aimerais|je veux|il me faut|quiero|querría|me gustaría|necesito|ich möchte|ich hätte gern"
    r"|ich brauche|ich will|eu quero|eu queria|queria|gostaria de|preciso de|我想要|我需要)\s*(?:un|une|des|du|le|la|les|una|unos"
    r"|unas|einen|eine|ein|ein paar|um|uma|uns|umas|几个|一个|一份)?\s*(?:[\w'-]+\s+){0,2}?(?:recette|recettes|receta|recetas"
    r"|rezept|rezepte|receita|receitas|poème|poema|gedicht|idée|idées|idea|ideas|idee|ideen|ideia|ideias|liste|lista"
    r"|histoire|historia|geschichte|história|conseil|conseils|consejo|consejos|tipp|tipps|dica|dicas|résumé|resumen"
    r"|zusammenfassung|resumo|菜谱|食谱|建议|故事|诗)",
    re.I,
)
# "Just got back from Crete.", "Moved to Berlin last month.": the person's life, subject left out
_SUBJECT_DROPPED = re.compile(
    r"^(?:(?:just|finally|recently|also|officially)\s+)?(?:got|moved|started|finished|bought|sold|adopted|quit|joined"
    r"|left|graduated|married|passed|failed|broke|lost|won|went|came back|arrived|landed|booked|signed|retired|turned"
    r"|spent|visited|flew|drove|ran|moving|starting|heading|flying|leaving)\s+(?!it\b|that\b|this\b|them\b)\w",
    re.I,
)
_ABOUT_ME = re.compile(r"^(?:(?:a (?:bit|little)|some (?:facts|things)|quick facts|more|something)\s+)?(?:about me|about myself)"
                       r"\s*:?$|^my (?:details|background|profile|info)\s*:?$", re.I)
_HEDGE = re.compile(r"^(?:i|we)\s+(?:think|believe|guess|suppose|reckon|bet|feel like|hope|doubt)\s+(?:that\s+)?(?P<rest>.+)$", re.I)
_FIRST_PERSON = re.compile(
    r"\b(?:i|i['’]m|i['’]ve|i['’]d|i['’]ll|me|my|mine|myself|we|we['’]re|we['’]ve|we['’]d|we['’]ll|our|ours|ourselves)\b"
    r"|我"
    r"|\b(?:yo|mi|mis|mío|mía|conmigo|nosotros|nosotras|nuestro|nuestra|nuestros|nuestras|soy|estoy|tengo|vivo|trabajo"
    r"|acabo|voy|fui|estuve|tuve|quiero|prefiero|odio|necesito|estudio|nací|crecí|llevo|hablo)\b|\bme\s+(?:llamo|gusta"
    r"|encanta|caso|mudé|mudo)\b"
    r"|\b(?:ich|mein|meine|meinen|meinem|meiner|meines|mich|mir|wir|unser|unsere|unseren|unserem|uns)\b"
    r"|\b(?:je|moi|mon|ma|mes|nous|notre|nos)\b|\b[jm]['’]"
    r"|\b(?:eu|meu|minha|meus|minhas|mim|comigo|nós|nosso|nossa|nossos|nossas|moro|sou|tenho|trabalho|gosto|nasci"
    r"|estudo|estou)\b",
    re.I,
)
_US = re.compile(r"\bus\b")  # lowercase "us" only: "US" is the country
_PERSON = (r"(?:mum|mom|mother|dad|father|parents?|wife|husband|partner|spouse|son|daughter|sons|daughters|kids?|children"
           r"|child|baby|twins|sister|brother|siblings?|boss|manager|friend|friends|best friend|neighbou?r|girlfriend"
           r"|boyfriend|fianc[ée]e?|nephew|niece|aunt|uncle|grand(?:ma|pa|mother|father|son|daughter)|granny|cousin"
           r"|colleague|coworker|co-worker|roommate|flatmate|landlord|landlady|teacher|doctor|dog|cat|puppy|kitten|team"
           r"|family|in-laws)")  # fmt: skip
_NAMES_OWN = re.compile(r"\b(?:my|our)\s+(?:[\w'-]+\s+){0,2}?" + _PERSON + r"\b", re.I)
_CONTINUES = re.compile(r"^(?:he|she|they|his|her|their)(?:\b|['’](?:s|re|ll|d|ve)\b)", re.I)


def _strip_fillers(text: str) -> str:
    t = text.strip()
    prev = None
    while t != prev:
        prev = t
        t = _FILLER.sub("", t).strip()
    return t


def _has_first_person(text: str) -> bool:
    return _FIRST_PERSON.search(text) is not None or _US.search(text) is not None


def _imperative(core: str) -> bool:
    first = re.match(r"[\w'’;]+", core)
    if first is None:
        return False
    return first.group().lower().replace("’", "'") in _IMPERATIVE


def _act(text: str, previous: str | None) -> tuple[Act, str]:
    """The act of one unit (see the module docstring); ``previous``: the unit before it."""
    core = _strip_fillers(text)
    if not core or _CHITCHAT_WHOLE.match(core) or _CHITCHAT_WHOLE.match(text.strip()):
        return Act.CHITCHAT, "filler"
    if len(core) > MAX_UNIT_CHARS:
        return Act.OTHER, "too long"
    if _REMEMBER.match(core):
        return Act.STATEMENT, "remember"
    if _QUESTION.search(core):
        return Act.QUESTION, "question"
    if _STANDING.search(core):
        return Act.STATEMENT, "instruction"
    if _REACTION.match(core):
        return Act.CHITCHAT, "reaction"
    if _REQUEST_START.match(core) or _WANT_CONTENT.match(core) or _WANT_CONTENT_INTL.match(core) or _imperative(core):
        return Act.REQUEST, "request"
    hedge = _HEDGE.match(core)
    if hedge and not _has_first_person(hedge["rest"]):
        return Act.OTHER, "hedge"
    if _ABOUT_ME.match(core):
        return Act.OTHER, "about-me header"
    if _has_first_person(core):
        return Act.STATEMENT, "first person"
    if previous is not None and _CONTINUES.match(core) and _NAMES_OWN.search(previous):
        return Act.STATEMENT, "continues"
    if _SUBJECT_DROPPED.match(core):
        return Act.STATEMENT, "subject left out"
    return Act.OTHER, "not about the person"


def classify(text: str) -> Classified:
    """Cut ``text`` into units and give each its act (see the module docstring)."""
    units: list[Unit] = []
    previous: str | None = None
    pasted = listing = False
    for s, e in _sentences(text or ""):
        bullet = _BULLET.match(text, s, e)
        if bullet:
            s = bullet.end()
        if pasted:
            units.append(Unit(text[s:e], s, e, Act.OTHER, "pasted text"))
            continue
        act, rule = _act(text[s:e], previous)
        if listing and bullet and act in (Act.OTHER, Act.CHITCHAT):
            act, rule = Act.STATEMENT, "listed about me"
        listing = rule == "about-me header" or (listing and bullet is not None)
        spans = _clauses(text, s, e) if act in (Act.QUESTION, Act.REQUEST) else [(s, e)]
        for cs, ce in spans:
            while ce > cs and text[ce - 1] in _TRIM_END:
                ce -= 1
            piece = text[cs:ce]
            if len(spans) > 1:
                act, rule = _act(piece, previous)
            units.append(Unit(piece, cs, ce, act, rule))
            previous = piece
            pasted = pasted or (act in (Act.QUESTION, Act.REQUEST) and _PASTE_INTRO.search(piece) is not None)
    return Classified(tuple(units))
