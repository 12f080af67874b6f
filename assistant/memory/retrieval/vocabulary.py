"""The word lists retrieval and memory answers still use, in one place (issue 28).

Whether a memory answers a question is decided by meaning (:mod:`.forms`, MiniLM); these lists
only serve the fast paths and the structural checks of a question (:mod:`.questions`): who it
is about, whether it carries its own data, what it asks to do. Six languages (the capture
languages): en, zh, es, de, fr, pt.
"""

from __future__ import annotations

from assistant.memory.language.dates import MONTHS as EN_MONTHS
from assistant.memory.language.dates_intl import MONTH_NAMES

#: Words of a question that do not say what is asked about.
#: Words that name the kind of value a question asks for ("What time ...", "How much did it cost?",
#: "How old ..."): the answer is the value, so the memory need not word them.
VALUE_WORDS = frozenset("time times date day cost costs costed price paid pay old age colour color year often long".split())

GENERIC = frozenset(
    """user my me i i'm i've mine myself you your name names named call called tell know remember recall
    what's who's where's when's how's favourite favorite best kind type sort thing things please again
    said say told""".split()
)
QUESTION_WORDS = frozenset("what which who whom whose where when why how".split())
#: "our" before a noun: a thing of the household ("our dog", "nuestra casa"; not French "nos", which is
#: also Portuguese "in the").
OUR_WORDS = frozenset("our nuestro nuestra nuestros nuestras unser unsere unseren unserem unserer notre nosso nossa nossos nossas".split())
#: ... but "our planet", "our solar system" are everyone's.
EVERYONES = frozenset("planet world earth solar universe galaxy moon sun species society country nation ancestors body brain".split())
#: "we / our" in the six capture languages: the person's household (folded words; zh: 我们 is
#: read by questions.speaks_of_self's 我).
HOUSEHOLD_WORDS = OUR_WORDS | frozenset("we us ours we're we've nosotros nosotras wir uns nous nos nós".split())
#: Words asking for a part of the person's home town ("Which neighbourhood do I live in?").
AREA_WORDS = frozenset("neighbourhood neighborhood neighbourhoods neighborhoods district suburb borough area".split())
#: A favourite of no one named is the person's ("favorite color?").
FAVOURITE_WORDS = frozenset("favourite favorite fav fave favourites favorites".split())
#: "im", "ive": "I'm", "I've" typed without the apostrophe (English questions only: German "im").
SELF_TYPOS = frozenset({"im", "ive"})
#: words typed in chat that are no typos of another word (spelling leaves them: "fave" is no "face")
CHAT_WORDS = FAVOURITE_WORDS | frozenset("bday bdays xmas pls plz thx tho thru gonna wanna gotta kinda sorta dunno idk tbh btw omg lol "
                                         "bf gf bff hubby wifey mum mom mam nan nana gran grandad ta cuz coz cos".split())
#: Pronouns: never a name given to a relation ("... our ginger cat. He basically runs the house.").
PRONOUNS = frozenset("he she they we it i you his her their our my its them him us".split())
#: Light verbs: never what is asked of a named other ("Which vet does Bracken go to?").
LIGHT_VERBS = frozenset("go goes going went do does did get gets got make makes made have has had".split())
#: What someone is, said after "is", that is no job ("Mira is coming too", "Noor is busy"): read by :mod:`.job_said`.
STATE_WORDS = frozenset("too also here there back away home fine ok okay good great well sick ill busy tired happy sad right sure late "
                        "early pregnant single married".split())
MODIFIERS = frozenset("favourite favorite best old new current usual main full real first last whole older younger elder "
                      "eldest oldest youngest little big baby wee kid twin former previous childhood".split())
#: Someone or something a question may ask to be named in its role ("Which vet does Bracken go to?",
#: "What's my dentist's phone number?", "Which airline are we flying with?"): a memory that never
#: words the role cannot name who or what fills it, whatever it says of the one it is about. Each
#: with the words that word it in a memory (a stem, prefix or synonym of them matches too).
ROLE_HEADS: dict[str, frozenset[str]] = {head: frozenset(ws.split()) for head, ws in {
    "vet": "vet vets veterinary veterinarian veterinário veterinaria clinic", "hotel": "hotel hostel inn guesthouse airbnb resort pousada b&b",
    "airline": "airline airlines airways air ryanair easyjet lufthansa tap", "coach": "coach trainer instructor",
    "teacher": "teacher tutor", "team": "team club fc united support supporter fan", "dentist": "dentist dental",
    "phone": "phone mobile number", "email": "email e-mail", "address": "address street road avenue rua calle straße",
    "brand": "brand make", "landlord": "landlord landlady", "hairdresser": "hairdresser barber salon",
    "lawyer": "lawyer solicitor attorney", "insurer": "insurer insurance",
    # things whose value is written with their word: "blood group O+", "my passport number", "the plate"
    "blood": "blood", "password": "password passcode pin", "passport": "passport", "plate": "plate registration reg",
}.items()}  # fmt: skip
#: A role head that is a role only before one of these words: "my blood type", not "my blood test".
ROLE_BEFORE: dict[str, frozenset[str]] = {"blood": frozenset({"type", "group"})}

#: English words of a question speaking of the person (cross-language cosines are too noisy to
#: trust retrieval's best memory on its own: see answer.choose).
ENGLISH_SELF = frozenset("i my me we our us i'm i've mine myself".split())

#: Words people use for the same thing in a question and in a memory ("movie" / "film"). Only
#: true synonyms: a relation ("car" / "drives") is not one.
SYNONYMS = (
    {"movie", "film"}, {"born", "birth", "birthday"}, {"job", "work", "occupation", "profession", "career", "living"},
    {"town", "city"}, {"trip", "travel", "holiday", "vacation", "journey"}, {"mom", "mum", "mother"},
    {"dad", "father"}, {"kid", "child", "children", "childhood"}, {"wife", "husband", "spouse", "partner"},
    {"football", "soccer", "footy"}, {"team", "club"}, {"color", "colour"}, {"masters", "master's", "msc"},
    {"cuisine", "food"}, {"night", "nite"}, {"tv", "telly", "television"}, {"final", "last"},
    # British and American words for one thing
    {"flat", "apartment"}, {"gp", "doctor", "physician"}, {"uni", "university", "college"}, {"mobile", "cellphone"},
    {"garden", "yard"}, {"autumn", "fall"}, {"appointment", "appt"}, {"birthday", "bday"}, {"neighbourhood", "neighborhood"}, {"nappy", "diaper"}, {"lorry", "truck"},
)  # fmt: skip

#: Colour words of the six capture languages (folded; zh: characters), for a colour asked.
COLOURS = frozenset(
    """red orange yellow green blue purple violet pink brown black white grey gray silver gold beige cream navy teal
    turquoise ginger tabby tan golden blonde brunette maroon tortoiseshell tortie calico brindle tuxedo
    rot orange gelb grün blau lila rosa braun schwarz weiß weiss grau silbern golden
    rojo roja naranja amarillo amarilla verde azul morado morada rosa marrón negro negra blanco blanca gris dorado
    rouge jaune vert verte bleu bleue violet rose marron noir noire blanc blanche gris doré
    vermelho vermelha laranja amarelo amarela verde azul roxo roxa rosa castanho preto preta branco branca cinzento cinza dourado""".split()
)  # fmt: skip
COLOUR_CHARS = ("红", "黄", "绿", "蓝", "紫", "粉", "棕", "黑", "白", "灰", "金", "银", "橙")

#: Month names of the six capture languages (folded; zh writes months with digits), English ones also short.
MONTHS = frozenset(m.casefold() for m in EN_MONTHS) | frozenset("jan feb mar apr jun jul aug sep sept oct nov dec".split()) \
    | frozenset(m for ms in MONTH_NAMES.values() for m in ms)

#: The person speaking of themselves, per language (folded words; zh: characters in the text).
SELF_WORDS = frozenset(
    """i me my mine myself i'm i've i'd
    yo mi mis me conmigo
    ich mich mir mein meine meinen meinem meiner meines
    je j' moi mon ma mes m'
    eu meu minha meus minhas comigo""".split()
)  # fmt: skip
SELF_CHARS = ("我",)
#: Question words of the six languages (a question may also end in "?"/"？").
QUESTION_STARTS = frozenset(
    """what which who whom whose where when why how do did am is are was were have has had can could
    qué que cuál cual cuáles quién quien quiénes dónde donde cuándo cuando cómo como cuánto cuántos
    was wer wen wem wo wann wie welche welcher welches woher wohin
    quoi quel quelle quels quelles qui où ou quand comment combien est-ce
    qual quais quem onde quando quanto""".split()
)  # fmt: skip
#: Imperatives that ask memory to recall ("Tell me my name.", "Remind me where I live.").
RECALL_STARTS = frozenset(
    """tell remind recall remember name dime recuérdame recuerdame sag sage erinnere dis-moi rappelle-moi
    diga lembra lembre-me""".split()
)  # fmt: skip
#: Asking the assistant to do something (not to recall): advice, writing, translation, maths.
REQUEST_WORDS = frozenset(
    """suggest recommend recommendation recommendations write draft compose translate translation explain
    calculate compute convert summarise summarize rewrite rephrase proofread plan ideas idea tips advice
    help list give make create generate describe compare brainstorm should could would might
    sugiere sugerir recomienda recomiéndame traduce traducir explica escribe calcula ayúdame
    vorschlagen empfiehl übersetze übersetzen erkläre schreibe berechne hilf
    suggère recommande traduis traduire explique écris calcule aide-moi
    sugira sugere recomende traduza traduzir explique escreva calcule ajude""".split()
)  # fmt: skip
#: Asking to check a general claim: "am I right that 2+2 is 4?" (the claim is what is asked).
CLAIM_CHECK = ("am i right", "am i correct", "is it true", "is it right", "is it correct", "right that", "true that",
               "correct that", "tengo razón", "es verdad", "es cierto", "habe ich recht", "stimmt es", "ai-je raison", "j'ai raison",
               "est-il vrai", "c'est vrai", "tenho razão", "é verdade")  # fmt: skip
#: A judgement asked about a plan or thing of the person's ("is my plan realistic?").
JUDGEMENTS = frozenset(
    """realistic reasonable possible feasible healthy safe normal good bad enough okay ok wise smart
    worth fair correct right wrong""".split()
)  # fmt: skip
#: What a short tag question asks of the statement before it ("Is he right?", "Correct?", "Does that sound doable?").
VERDICTS = frozenset("""true right correct accurate doable achievable dumb stupid silly crazy mistake much risky dangerous
    sensible advisable legit reliable""".split())  # fmt: skip
LANGUAGE_NAMES = frozenset(
    """english spanish german french portuguese chinese mandarin italian japanese dutch russian arabic korean
    inglés español alemán francés portugués chino englisch spanisch deutsch französisch portugiesisch
    anglais espagnol allemand français portugais chinois inglês espanhol alemão francês português""".split()
)  # fmt: skip

#: The person's relations in the other capture languages (en words are in answerable.RELATIONS);
#: Chinese is left out: regex word boundaries do not split Chinese text.
RELATION_WORDS_INTL: dict[str, tuple[str, ...]] = {
    "mother": ("madre", "mamá", "mutter", "mama", "mère", "maman", "mãe"),
    "father": ("padre", "papá", "vater", "papa", "père", "pai"),
    "sister": ("hermana", "schwester", "sœur", "soeur", "irmã"),
    "brother": ("hermano", "bruder", "frère", "frere", "irmão"),
    "son": ("boy", "hijo", "sohn", "fils", "filho"),
    "daughter": ("girl", "hija", "tochter", "fille", "filha"),
    "child": ("hijos", "niños", "kinder", "kindern", "enfants", "filhos"),
    "partner": ("esposa", "esposo", "mujer", "marido", "frau", "ehefrau", "ehemann", "femme", "mari", "mulher"),
    "friend": ("bff", "amigo", "amiga", "freund", "freundin", "ami", "amie"),
    "grandmother": ("abuela", "großmutter", "grossmutter", "oma", "grand-mère", "mamie", "avó"),
    "grandfather": ("abuelo", "großvater", "grossvater", "opa", "grand-père", "papi", "avô"),
    "sister-in-law": ("sister-in-law", "sister in law", "cuñada", "schwägerin", "belle-sœur", "cunhada"),
    "brother-in-law": ("brother-in-law", "brother in law", "cuñado", "schwager", "beau-frère", "cunhado"),
    "cat": ("gato", "katze", "chat", "gata"),
    "dog": ("perro", "hund", "chien", "cão", "cachorro"),
}  # fmt: skip
#: "my" / "our" in the six languages (before a relation word).
POSSESSIVES = ("my", "our", "mi", "mis", "nuestra", "nuestro", "mein", "meine", "meinem", "meinen", "meiner", "unser",
               "unsere", "ma", "mon", "mes", "notre", "nos", "minha", "meu", "meus", "minhas", "nossa", "nosso")  # fmt: skip


#: Examples of what a request to *produce* something starts with (:mod:`.intent`): a question's
#: leading verb (or noun: "Any tips ...") is compared with these and with :data:`RECALL_HEADS` by
#: MiniLM, so verbs that are not listed ("outline", "estimate", "proofread") are recognised too.
PRODUCE_HEADS = tuple("""write draft compose suggest recommend translate calculate compute plan create make generate
    summarise explain list give brainstorm ideas tips advice""".split())  # fmt: skip
RECALL_HEADS = tuple("tell remind recall remember repeat say confirm check show".split())
#: Words before a request's verb that do not say what is asked ("Could you please write ...",
#: "Any tips ..."); English (a question in another language is read in its English gloss).
REQUEST_PREFIX = frozenset("please pls plz kindly can could would will you just maybe any some".split())
#: What a request's object starts with when it asks for something the person has (a possessive
#: object, a clause: "Give me my wife's name", "Write down where I live"; "the ..." when it speaks
#: of the person: "List the languages I speak"), not for something new ("a poem", "some ideas",
#: "the plot of Hamlet"); and the words between the verb and its object.
KNOWN_OBJECT = frozenset("my our where what when who whom which how whether if".split())
OBJECT_PARTICLES = frozenset("me us down up out again".split())

#: Kinds of dog and cat a person names instead of the animal ("We have a beagle called Pretzel"
#: answers "What's my dog's name?").
DOG_KINDS = tuple("""beagle labrador retriever poodle terrier spaniel collie sheepdog dachshund husky bulldog pug chihuahua
    corgi schnauzer boxer greyhound whippet lurcher doberman rottweiler pointer setter mastiff maltese pomeranian yorkie
    vizsla weimaraner akita shiba samoyed malamute dalmatian newfoundland labradoodle cockapoo cavapoo goldendoodle
    staffie westie basset bloodhound shepherd springer cocker heeler kelpie frenchie bichon havanese papillon saluki
    basenji ridgeback""".split())  # fmt: skip
CAT_KINDS = tuple("""tabby siamese persian ragdoll bengal sphynx burmese abyssinian tortoiseshell calico moggy shorthair
    longhair coon birman rex himalayan manx chartreux ocicat""".split())  # fmt: skip
