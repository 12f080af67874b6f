"""What a first-person sentence says without the person asserting it: hypotheticals, other people's
opinions and hearsay, indirect questions, and claims about the world. Capture keeps none of these as facts.

    hypothetical("If we had a bigger garden, we'd get a dog.")        # True
    reported("My mum thinks I should retrain as an accountant.")      # True
    reported("My doctor told me I have high blood pressure.")         # False: told about the person
    world_claim("nurses in the UK are badly underpaid")               # True

Each is decided by clause structure and mood, in the six capture languages, not by the words of
single examples:

- **hypothetical** (irrealis): a conditional subordinator (if, si, wenn/falls, se, 如果/要是/假如)
  *and* a verb in the conditional or past subjunctive in the same sentence (would/'d/could/might;
  -ría, -iera/-iese; würde/wäre/hätte/könnte; -rais/-rait; -sse, -ria; 会/就/的话). A real
  conditional ("If I eat dairy I get a rash", "Wenn ich müde bin, trinke ich Kaffee") states a
  habit and stays a statement;
- **reported**: the clause opens with an impersonal hearsay frame (apparently, they say, dicen
  que, on dit que, dizem que, man sagt/angeblich, 听说/据说), or its subject is someone other than
  the person (no I/we/ich/je/eu/yo/我 before the verb) with a verb of thinking or saying (thinks,
  reckons, says, told me; dice, cree; meint, sagt; pense, dit; acha, diz; 觉得/认为/说). A verb of
  *saying* whose content is about the person in the first person singular ("My GP said I have
  asthma") reports what the person was told about themselves and is not counted -- unless the
  content advises or judges (a modal of obligation or an excess degree: "My GP says I need to cut
  down on salt", "Ma sœur dit que je travaille trop"); a verb of
  thinking always reports an opinion; a frame that ends at its verb ("Mein Vater meint,") makes
  the clause after it the reported content (:func:`frame_only`);
- **asking**: an indirect question or a tentative suggestion in a statement's clothes ("I'm
  wondering whether ...", "me pregunto si", "ich frage mich, ob", "je voudrais savoir",
  "não sei se", 我想知道; "I was thinking maybe we could ..."), or a clause that opens with
  "whether"/"ob";
- **world claim**: a clause without any first-person word whose subject is a plural noun phrase
  with a plural verb ("nurses in the UK are underpaid", "Pflegekräfte verdienen zu wenig", "los
  alquileres son caros"): a generalisation, not the person's life.

Pure: no I/O, no model.
"""

from __future__ import annotations

import re

from assistant.memory.language import attitude
from assistant.memory.language.today import today_only
from assistant.memory.language.cues import has_first_person

_CJK_COND = re.compile(r"如果|要是|假如|万一|假设")
_CJK_MOOD = re.compile(r"会|就|的话|能|可以")
_COND_SUB = re.compile(r"(?:(?:^|[,;:]\s*|\b(?:and|but|or|y|o|pero|und|aber|oder|et|ou|mais|e|mas)\s+)(?:si|se(?=\s+(?:eu|nós|ele|ela|eles"
                       r"|elas|a gente|você|\w+sse)\b))|(?:^|(?<=[\s,;:]))(?:if|even if|only if|wenn|falls))\s+(?!(?:not|no|nicht|pas)\b)", re.I)
_MOOD = re.compile(
    r"\b(?:would|could|might|wouldn['’]t|couldn['’]t)\b|\b(?i:i|we|he|she|they|you|it)['’]d\b"
    r"|\b\w{2,}(?:ría|rías|ríamos|rían|iera|ieras|iéramos|ieran|iese|iesen)\b"  # es: conditional, past subjunctive
    r"|\b(?:fuera|fuese|tuviera|pudiera|hubiera|hiciera|estuviera)\b"
    r"|\b(?:würde|würdest|würden|würdet|wäre|wären|wärst|hätte|hätten|hättest|könnte|könnten|könntest)\b"
    r"|\b\w{2,}(?:rais|rait|rions|riez|raient)\b"  # fr: conditional ("si j'avais ..., je ferais")
    r"|\b\w{2,}(?:sse|sses|ssem|ssemos)\b|\b\w{3,}(?:aria|eria|iria|ariam|eriam|iriam)\b",  # pt: -sse, -ria
    re.I,
)
_NOT_PT_COND = re.compile(r"\b(?:padaria|livraria|pizzaria|secretaria|maria|série|galeria|loteria|bateria|lavanderia"
                          r"|confeitaria|academia|geladeira|primeira|carteira|maneira)\b", re.I)


# a supposition frame: what follows is only supposed, whatever the verb's mood ("Suppose I moved to Canada, ...",
# "Angenommen, ich ziehe nach Wien", "Supongamos que me mudo a Chile", "Supposons que je change de job", 假设我搬到北京)
_SUPPOSE = re.compile(r"^(?:(?:and|but|so|y|pero|und|aber|et|mais|e|mas)\s+)?(?:let['’]s\s+)?(?:suppose|supposing|imagine|assuming|say|what if"
                      r"|supongamos|suponiendo|suponte|imagina|imagínate|pongamos|angenommen|mal angenommen|stell dir vor|gesetzt den fall"
                      r"|supposons|imaginons|admettons|mettons|suponha|supondo|imagine|vamos supor|digamos)\b(?:,?\s+(?:that|que|dass))?[\s,]"
                      r"|^(?:假设|假如|设想)", re.I)


def supposed(clause: str) -> bool:
    """The clause opens with a supposition frame (:data:`_SUPPOSE`): only supposed, not said."""
    return _SUPPOSE.match(clause.strip()) is not None


def hypothetical(sentence: str) -> bool:
    """An irrealis sentence (see the module docstring): a conditional subordinator and a verb
    in the conditional/subjunctive mood."""
    if _CJK_COND.search(sentence):
        return _CJK_MOOD.search(sentence) is not None
    if not _COND_SUB.search(sentence):
        return False
    return _MOOD.search(_NOT_PT_COND.sub(" ", sentence)) is not None


#: the opening of an impersonal hearsay frame (also where a clause starts after "and": "Vivo en Valencia y dicen que ...")
#: a conditional subordinator after "and"/"but": where the hypothetical part of a sentence starts
CONDITION_START = r"(?:if|si|wenn|falls|se(?=\s+(?:eu|nós|ele|ela|eles|elas|a gente|você|yo|él|ella|nosotros|tuviera|pudiera)\b))\b"
#: a comment on the clause before it, after a comma ("..., which is annoying", "..., was ehrlich gesagt super ist")
COMMENT_START = r"(?i:which|what|lo que|lo cual|ce qui|ce que|o que|was|welches)\b|das\s+[a-zäöüß]+t\b"
#: a condition still to be met, after a comma ("..., once the garden fence is fixed")
CONDITION_AHEAD = r"(?i:once|unless|as soon as|sobald|en cuanto|dès que|assim que|desde que)\b"
#: where an indirect question starts after "and" ("Trabajo desde casa y me pregunto si ...")
ASKING_START = (r"(?:me pregunto|no s[ée] si|frage mich|weiß nicht,? ob|me demande|ne sais pas si|me pergunto|não sei se"
                r"|(?:fico|estou|ando) pensando se|wonder(?:ing)? (?:if|whether))\b")
HEARSAY_START = (r"(?:apparently|supposedly|allegedly|reportedly|dicen que|se dice que|dizem que|falam que|on dit|il para[iî]t"
                 r"|man sagt|angeblich|es heißt)\b")
_HEARSAY = re.compile(
    r"^(?:(?:and|but|so|y|e|pero|mas|mais|et|und|aber|also)\s+)?(?:apparently|supposedly|allegedly|reportedly|rumou?r has it"
    r"|(?:they|people|everyone|everybody|some people|experts|doctors) (?:say|says|said|reckon|think|claim)"
    r"|word is|i(?:['’]ve)? (?:heard|read)(?: somewhere)?(?: that)?\b"
    r"|(?:ich )?hab(?:e)? (?:gehört|gelesen)|he (?:oído|escuchado|leído)|j['’]ai (?:entendu dire|lu)|li que|ouvi falar"
    r"|dicen que|se dice que|según dicen|dizem que|diz-se que|falam que|ouvi dizer|on dit|il para[iî]t|paraît-il"
    r"|man sagt|angeblich|es heißt|sagt man)\b|^(?:听说|据说|有人说|大家都说|人家说)",
    re.I,
)
_THINK = (r"thinks|think|thought|reckons|reckon|reckoned|believes|believe|feels that|feel that|reckons"
          r"|cree|creen|creía|piensa|piensan|opina|opinan|meint|meinen|meinte|findet|finden|glaubt|glauben|denkt|denken"
          r"|pense|pensent|croit|croient|trouve que|trouvent que|acha|acham|achava|pensa|pensam|acredita|acreditam")
_SAY = (r"says|say|said|told me|tells me|told us|keeps saying|insists|claims|dice|dicen|dijo|me dijo|dicho|contado|contó|me contó|comentó|asegura"
        r"|sagt|sagen|sagte|gesagt|erzählt|erzählte|behauptet|behauptete|meinte|gemeint"
        r"|dit|disent|m['’]a dit|a dit|raconte|m['’]a raconté|prétend|diz|dizem|disse|falou|fala|contou|me contou")
_FRAME = re.compile(r"^(?P<subj>(?:[\w'’-]+\s+){1,6}?)(?P<v>(?i:" + _THINK + r")|(?i:" + _SAY + r"))\b(?P<rest>.*)$", re.S)
_SELF = re.compile(r"^(?:(?:and|but|so|y|e|et|und|aber|pero|mas|mais)\s+)?(?:i|we|you|ich|wir|du|je|j['’]|nous|tu|vous|eu|nós|você|vocês"
                   r"|yo|nosotros|nosotras|tú|usted)\b", re.I)
_SELF_CONTENT = re.compile(r"\b(?:i|i['’]m|i['’]ve|me|my|mine|yo|mi|mis|me|ich|mein|meine|meinen|mir|mich|je|j['’]|mon|ma|mes|moi"
                           r"|eu|meu|minha|meus|minhas)\b", re.I)
_POSSESSIVE = re.compile(r"\b(?:my|our|mi|mis|nuestr[oa]s?|mein\w*|unser\w*|mon|ma|mes|notre|nos|meu|minha|meus|minhas|noss[oa]s?)\b", re.I)
_ZH_FRAME = re.compile(r"^(?P<subj>[\u4e00-\u9fff]{1,6}?)(?P<v>觉得|认为|以为|说|告诉我|让我|叫我|要我|建议我)(?P<rest>.*)$")


# what a subject never ends with: an infinitive's "to"/"zu" or a preposition (the verb after it has no subject of its own)
_NO_SUBJECT = re.compile(r"(?:had|have|has|need|needs|needed|want|wants|wanted|got|going|tried|try|used|ought|forgot|decided|plan|planned)"
                         r"\s+to|(?:[\w'’-]+\s+)*(?:of|for|about|with|zu|von|mit|über|für|à|pour|de|para|por|sobre)", re.I)


# a subject that already has its verb before "and"/"but": the verb of saying belongs to the clause after it
_OWN_CLAUSE = re.compile(r"\b(?:is|are|was|were|am|has|have|had)\b.*\b(?:and|but)\s*$", re.I)


def _frame(clause: str) -> tuple[str, str, str] | None:
    """(subject, verb, what follows) of a clause of thinking or saying whose subject is not the
    person, else None."""
    c = clause.strip()
    m = _ZH_FRAME.match(c)
    if m and m["subj"] not in ("我", "我们", "我也", "我都", "我就", "我还"):
        return m["subj"], m["v"], m["rest"]
    m = _FRAME.match(c)
    if m is None or _SELF.match(m["subj"]) or re.search(r"\b(?:i|we|ich|wir|je|nous|eu|nós|yo)\s*$", m["subj"], re.I):
        return None
    if re.search(r"[.!?]", m["subj"]) or has_first_person(_POSSESSIVE.sub(" ", m["subj"])):
        return None  # the person is a subject before the verb ("Vivo en Valencia y dicen que ...")
    if _NO_SUBJECT.fullmatch(m["subj"].strip()) or (m["v"].casefold() == "meinen" and re.match(r"\s+[A-ZÄÖÜ]", m["rest"])) \
            or _OWN_CLAUSE.search(m["subj"]):  # "our parrot Kiwi is 23 and | says 'tere'": a clause of its own first
        return None  # an infinitive or a preposition's object, no subject ("had to say goodbye", "Kurz zu meinen Tieren";
        # "Amaia rang to say ..." has one)
    return m["subj"], m["v"], m["rest"]


# the verb of saying or thinking before its subject: "Dice mi madre que ...", "Acha o meu pai que ...", "Dit ma sœur"
_FRAME_VS = re.compile(r"^(?:dice|dijo|cuenta|contó|opina|cree|piensa|diz|disse|conta|acha|dit|pense|trouve)\s+(?:mi|mis|el|la|los|las"
                       r"|meu|minha|o|a|os|as|mon|ma|mes|le|les)\s+[\wÀ-ÿ-]+(?:\s+[\wÀ-ÿ-]+)?\s*,?\s*(?:que|qu['’])", re.I)


def reported(clause: str) -> bool:
    """Someone else's opinion or hearsay (see the module docstring), not the person's statement."""
    c = clause.strip()
    if _HEARSAY.match(c) or _FRAME_VS.match(c):
        return True
    f = _frame(c)
    if f is None:
        return False
    _, verb, rest = f
    saying = re.fullmatch(r"(?i:" + _SAY + r")|说|告诉我", verb) is not None
    if saying and (_SELF_CONTENT.search(rest) or rest.lstrip().startswith("我")) and not _ADVICE.search(rest):
        return False  # "My GP said I have asthma": told about the person
    return True  # advice or a judgement ("My GP says I need to cut down on salt", "dit que je travaille trop") is theirs


#: what someone else's words about the person advise or judge, not state: a modal of obligation or an excess degree
_ADVICE = re.compile(r"\b(?:should|shouldn['’]t|ought to|need to|needs to|have to|has to|must|sollte|solle|sollst|sollten|müsse|müsste"
                     r"|debería|deberías|debe|tendría que|tengo que|tienes que|hay que|devrais|devrait|dois|doit|faudrait|faut"
                     r"|devia|deveria|deve|tenho que|precisa|preciso|too much|too many|trop|zu viel|zu sehr|demasiado|demais)\b"
                     r"|应该|得|要", re.I)


def frame_only(clause: str) -> bool:
    """A reporting frame with its content in the next clause ("Mein Vater meint", "My boss said:")."""
    c = clause.strip().rstrip(",:;，：")
    if asking(c) and re.search(r"(?:frage mich|wissen|me demande|savoir|saber|me pergunto|想知道|wonder(?:ing)?|know|sicher|sure"
                               r"|überlegen|segur[oa]|sûre?|certeza)$", c, re.I):
        return True
    if attitude.opinion_frame_only(c):
        return True
    f = _frame(c)
    if f is None:
        return bool(_HEARSAY.match(c)) and len(c.split()) <= 3
    return not re.search(r"\w", re.sub(r"^\s*(?:that|que|dass|daß)\b", "", f[2], flags=re.I))


#: a plural noun subject with a plural verb (see :func:`world_claim`); also where a clause starts after "and"
WORLD_SUBJECT = (
    # en: (the/most/all ...) plural noun (prepositional phrase) plural verb
    r"(?:(?:the|most|all|many|some|these|those|a lot of|lots of)\s+)?[a-z]{3,}s\s+(?:(?:in|at|on|of|from|with|like|around)\s+(?:[\w'’-]+\s+){0,3}?)?"
    r"(?:are|were|have|get|earn|make|need|cost|tend|can|can['’]t|cannot|don['’]t|do|should|shouldn['’]t|must|will|won['’]t|never|always|usually|often)\b"
    # de: a capitalised noun with a plural verb ("Pflegekräfte verdienen", "die Mieten sind")
    r"|(?:(?:die|alle|viele|manche|solche)\s+)?[A-ZÄÖÜ][a-zäöüß]+\s+(?:sind|haben|werden|müssen|können|sollten|brauchen|kosten|verdienen"
    r"|bekommen|[a-zäöüß]{3,}en)\b"
    # es/fr/pt: a plural article, a noun, then a verb of the third person plural
    r"|(?:(?:los|las|les|os|as|todos los|todas las|tous les|toutes les|todos os|todas as|muchos|muchas|beaucoup de|muitos|muitas)\s+)"
    r"[a-zà-ÿ]{3,}s\s+(?:[a-zà-ÿ]+\s+){0,3}?(?:son|están|tienen|necesitan|cuestan|ganan|sont|ont|coûtent|gagnent|doivent|são|estão|têm"
    r"|custam|ganham|precisam|[a-zà-ÿ]{3,}(?:an|en|ent|am|em))\b"
)
_WORLD_SUBJECT = re.compile(r"^(?:" + WORLD_SUBJECT + r")")

_COORD = r"(?:(?:and|but|so|y|e|et|und|aber|pero|mas|mais)\s+)?"
# the person asks, in a statement's clothes: "I wonder if", "me pregunto si", "ich frage mich, ob", "je voudrais savoir",
# "fico pensando se", 我想知道; a clause that opens with "whether"/"ob" is an indirect question by its structure
_ASKING = re.compile(
    r"^" + _COORD + r"(?:(?:i|we|yo|ich|wir|je|nous|eu|nós)\s+|j['’])?(?:(?:was|am|were|['’]m|['’]re|just|still|really|kind of)\s+)*"
    r"(?:(?:wonder(?:ing)?|not sure|unsure|undecided|can['’]t decide|trying to decide|asking myself|torn(?: between)?|debating)"
    r"\s+(?:if|whether|how|what|when|where|which|who|why|between)\b|thinking (?:that )?(?:maybe|perhaps)\b"
    r"|(?:would|['’]d) (?:like|love) to know\b|(?:want|need) to know\b"
    # forgetting what is asked: "I can't remember where I parked", "I forgot what my sister's husband is called"
    r"|(?:forgot|forget|(?:can['’]t|cannot|can never|don['’]t|do not) (?:remember|recall))\s+(?:if|whether|how|what|when|where|which|who|why)\b"
    r"|no (?:recuerdo|me acuerdo de) (?:si|qué|cómo|cuándo|dónde)\b|weiß nicht mehr,? (?:ob|wie|was|wann|wo)\b"
    r"|ne me souviens (?:plus )?(?:si|de quand|comment|où)\b|não me lembro (?:se|de quando|como|onde)\b"
    r"|me pregunto\b|no s[ée] (?:si|por qué|qué|cómo|cuándo|dónde)\b|(?:estoy|sigo) pensando si\b|(?:quisiera|quiero|querría) saber\b|me gustaría saber\b"
    r"|frage mich\b|weiß nicht,? (?:ob|warum|wieso|wie|was|wann|wo)\b|(?:bin|sind) (?:mir|uns) (?:noch )?nicht sicher\b"
    r"|(?:bin|sind) (?:gerade |noch )?am überlegen\b|no estoy segur[oa]\b|je ne suis pas sûre?\b|não tenho certeza\b|(?:möchte|will|würde gern|würde gerne) wissen\b|überlege,? ob\b"
    r"|me demande\b|ne sais pas (?:si|pourquoi|comment|quand|où)\b|(?:voudrais|veux|aimerais) savoir\b|me pose la question\b"
    r"|me pergunto\b|não sei (?:se|por que|porque|o que|como|quando|onde)\b|(?:fico|estou|ando) pensando se\b|(?:queria|quero|gostaria de) saber\b)"
    r"|^" + _COORD + r"(?:whether|ob)\b"
    # no idea whether ...: "Keine Ahnung, ob ...", "Ni idea de si ...", "Aucune idée", "Não faço ideia"
    r"|^(?:keine ahnung|ni idea|no tengo ni idea|aucune idée|je n['’]en sais rien|não faço (?:a menor )?ideia|sei lá|no idea|who knows|wer weiß)\b"
    r"|^(?:我)?(?:想知道|不知道|在想要不要|在犹豫|在考虑要不要|想问问)",
    re.I,
)


def asking(clause: str) -> bool:
    """An indirect question or a tentative suggestion: the person asks, states nothing."""
    return _ASKING.match(clause.strip()) is not None


def world_claim(clause: str, names: set[str] = frozenset()) -> bool:
    """A generalisation with a plural noun subject and no first-person word (see the module
    docstring); a clause about one of the person's people (``names``) is never one."""
    c = re.sub(r"^(?:(?:and|but|so|y|e|et|und|aber|pero|mas|mais)\s+)", "", clause.strip(), flags=re.I)
    if has_first_person(c) or any(re.search(r"\b" + re.escape(n) + r"\b", c) for n in names):
        return False
    return _WORLD_SUBJECT.match(c) is not None


def whole_sentence(sentence: str) -> str | None:
    """Why a whole sentence is not the person's statement: it opens with its condition and is
    hypothetical, or it opens with someone else's opinion or hearsay (its first clause frames
    all of it). None otherwise (a sentence whose first part is the person's own is kept for the
    clause-level check of :func:`not_asserted`)."""
    s = sentence.strip()
    if hypothetical(s) and (_COND_SUB.match(s) or _CJK_COND.match(s)):
        return "hypothetical"
    if attitude.contingent(s):
        return "a condition still to be met"
    if asking(s):
        return "an indirect question"
    head = re.split(r"[,;:，；：]", s, maxsplit=1)[0]
    if reported(s) and (_HEARSAY.match(s) or (_frame(head) is not None and reported(head if frame_only(head) else s))):
        return "someone else's opinion or hearsay"
    return None


def _irrealis_part(clause: str) -> bool:
    """The clause holds the condition or the conditional verb of a hypothetical sentence."""
    return bool(_CJK_COND.search(clause) or _CJK_MOOD.search(clause) or _COND_SUB.search(clause)
                or _MOOD.search(_NOT_PT_COND.sub(" ", clause)))


_DEGREE = (r"(?:so|really|very|super|pretty|quite|mad|totally|surprisingly|incredibly|fairly|a bit|a little|kind of|kinda"
           r"|muy|súper|bastante|tan|un poco|muito|bem|meio|tão|um pouco|très|trop|vraiment|assez|un peu|tellement"
           r"|sehr|echt|total|ziemlich|richtig|voll|so)")
_COPULA = (r"(?:is|are|was|were|am|['’]s|['’]re|['’]m|been|feel|feels|felt|looks|seems|es|está|están|estoy|estamos|son|fue"
           r"|é|estão|estou|tá|foi|est|sont|suis|sommes|était|c['’]est|ist|sind|bin|war|waren|fühle mich)")
# a passing state or an evaluation: (a subject of two words at most) + copula + a degree word + ONE word (+ a time):
# "work's been mad busy", "estamos muy nerviosos", "elle est super stressée" -- "I'm vegetarian" (no degree word)
# and "I'm really into climbing" (two words) are facts; "it's going well", "está indo bem", 挺好的 likewise evaluate
_EVALUATION = re.compile(
    r"^(?:(?:la verdad es que|honestly|ehrlich gesagt|franchement|sinceramente)\s+)?(?:[\w'’]+\s+){0,2}?" + _COPULA
    + r"\s+(?:" + _DEGREE + r"\s+)+[\w-]+(?:\s+(?:so far|now|right now|at the moment|lately|today|ahora|agora|maintenant|gerade|jetzt))?[.!]*$"
    r"|^(?:(?:it|things|everything|all|todo|tudo|tout|alles)\s+)?(?:['’]s\s+|is\s+|está\s+|va\s+|vai\s+|läuft\s+)?"
    r"(?:going|indo|yendo)?\s*(?:well|great|fine|badly|bien|bem|mal|gut|super|bien)(?:\s+so far)?[.!]*$"
    r"|^(?:挺|很|非常|特别|超|太|真|有点|比较)[\u4e00-\u9fff]{1,2}(?:的|了|啊|呢)*[。！!.]*$",
    re.I,
)


# the common passing states (not "married", "pregnant", "retired": lasting ones), six languages
_STATE = (r"(?:tired|exhausted|knackered|shattered|stressed|nervous|anxious|excited|worried|bored|grumpy|upset|annoyed|frustrated"
          r"|overwhelmed|hungover|cansad[oa]s?|agotad[oa]s?|estresad[oa]s?|nervios[oa]s?|preocupad[oa]s?|aburrid[oa]s?|emocionad[oa]s?"
          r"|hart[oa]s?|exaust[oa]s?|estressad[oa]s?|nervos[oa]s?|ansios[oa]s?|fatigu[ée]e?s?|crev[ée]e?s?|[ée]puis[ée]e?s?"
          r"|stress[ée]e?s?|nerveux|nerveuse|inqui[eè]te?|angoiss[ée]e?s?|müde|kaputt|erschöpft|gestresst|nervös|aufgeregt|genervt"
          r"|gelangweilt|traurig|enttäuscht|erkältet|krank|sad|sick|ill|triste|tristes|deprimid[oa]s?|malade|doente"
          r"|resfriad[oa]s?|enferm[oa]s?|agobiad[oa]s?|fatal|mal|gripad[oa]s?|constipad[oa]s?|enrhumée?s?"
          # a superlative ("nerviosísima"), or a comparison with before ("mucho mejor"): how the person is now
          r"|[a-zñ]{3,}ísim[oa]s?|better|worse|mejor|peor|besser|schlechter|mieux|pire|melhor|pior)")
_FIRST_COPULA = (r"(?:i['’]m|i am|we['’]re|we are|i feel|i['’]m feeling|estoy|estamos|me siento|estou|estamos|tô|je suis|j['’]suis"
                 r"|on est|nous sommes|ich bin|wir sind|bin ich|sind wir)")  # German verb second: "ehrlich gesagt bin ich ..."
# "I'm exhausted today", "Estoy agotada", "Je suis crevée", "I'm nervous about Friday": a first-person passing state,
# with a time or what it is about at most; 我今天好累: 我 (a time) + a degree word + a state
_PASSING = re.compile(r"^(?:(?:today|this week|lately|hoy|este año|esta semana|hoje|este ano|esta semana|aujourd['’]hui|cette semaine"
                      r"|heute|diese woche|ehrlich gesagt|gerade|honestly|la verdad)\s+)?(?:" + _FIRST_COPULA + r")\s+(?:(?:" + _DEGREE + r"|absolutely|completely|totally|so so|too|zu|trop|demasiado|demais|much|mucho|viel|beaucoup|etwas|ein bisschen|algo|un peu)\s+)*" + _STATE
                      + r"(?:\s+(?:today|tonight|this morning|right now|at the moment|hoy|hoje|aujourd['’]hui|heute|(?:about|for|por|com|pour"
                      r"|wegen|with|of|de|del|von|über|mit|avec|du|des|da|do)\s+[\w'’-]+(?:\s+[\w'’-]+){0,2}))?[.!]*$"
                      r"|^(?:我|我们|他|她)(?:今天|现在|最近|这几天)?(?:心情)?(?:好|很|太|真|特别|有点|非常|不太)?(?:累|困|烦|紧张|焦虑|好|差)(?:了|啊|死了)*[。！!.]*$", re.I)
# only possible, not decided: "We might go to Crete", "a lo mejor", "vielleicht", "peut-être", "talvez", 可能
_POSSIBLE = re.compile(r"\b(?:might|maybe|perhaps|possibly|not sure yet|a lo mejor|quizás?|tal vez|vielleicht|eventuell|peut-être"
                       r"|talvez|se calhar|quem sabe)\b|可能|也许|说不定|或许", re.I)


def evaluation(clause: str) -> bool:
    """A passing state or an evaluation (see :data:`_EVALUATION`, :data:`_PASSING`), not a lasting fact."""
    c = clause.strip()
    return _EVALUATION.match(c) is not None or _PASSING.match(c) is not None


def possible(clause: str) -> bool:
    """Only possible, not decided or stated (see :data:`_POSSIBLE`)."""
    return _POSSIBLE.search(clause) is not None


def not_asserted(clause: str, sentence: str, names: set[str] = frozenset()) -> str | None:
    """Why ``clause`` (of ``sentence``) is not the person's own statement, else None. In a
    hypothetical sentence, the clauses that hold its condition or its conditional verb are
    hypothetical; a clause beside them ("I live in Leeds, but if I won ... I'd move") is not."""
    if (hypothetical(sentence) and _irrealis_part(clause)) or supposed(clause):
        return "hypothetical"
    if attitude.contingent(sentence):
        return "a condition still to be met"
    if attitude.irrealis(clause):
        return "a wish or a counterfactual"
    if attitude.intention(clause):
        return "an intention"
    if attitude.opinion_frame(clause):
        return "the person's opinion"
    if attitude.today_state(clause):
        return "a passing state"
    if today_only(clause, sentence):
        return "only about today"
    if attitude.anaphoric_comment(clause):
        return "a comment on the clause before"
    if reported(clause):
        return "someone else's opinion or hearsay"
    if asking(clause):
        return "an indirect question"
    if world_claim(clause, names):
        return "a claim about the world"
    if re.match(CONDITION_AHEAD, clause.strip()):
        return "a condition still to be met"
    if evaluation(clause):
        return "a passing state or an evaluation"
    if possible(clause):
        return "only possible"
    return None
