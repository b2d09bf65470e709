/**
 * The word lists of text analysis: stop words, irregular forms, and words the
 * inflection rules would break.
 *
 * Stop words carry no topic: English function words and the filler of chat requests
 * ("hi", "please", "can you help me"), so that small talk leaves no query words and a
 * long chat message is judged on its content words. Only words that never name a task
 * belong here: how common a word is in the library is never a reason to drop it.
 */
const STOP = `
a about above after again against all almost also although always am among an and any anybody anyone
anything anyway are aren around as at be because been before being below between both but by can cannot
cant could couldn did didn do does doesn doing don done during each either else even ever every
everyone everything few for from further had hadn has hasn have haven having he her here hers
herself him himself his how however i id if im in into is isn it its itself ive just
ll me might mine more most much must my myself neither no nor not nothing now of often on once only or
other others otherwise our ours ourselves out over own perhaps quite rather re really s same
shall she should shouldn since so some somebody someone something sometimes somewhat soon still such sure
t than that thats the their theirs them themselves then there these they thing things this those though
through thus to too under until up upon us very via was wasn we were weren what whatever when whenever
where whether which while who whoever whom whose why will with within won would wouldn yes yet you
your yours yourself yourselves ve d m o y
hi hello hey hiya thanks thank thx cheers ok okay please pls kindly dear folks guys lol yeah yep nope
need needs needed want wants wanted like help helps helping know knows think guess
wonder wondering tell say says said saying get gets getting got gonna wanna
good great nice cool awesome fine morning afternoon evening night tonight today tomorrow yesterday
maybe actually basically literally honestly quick quickly anyway many lot lots bit
`;

const STOP_WORDS: ReadonlySet<string> = new Set(STOP.split(/\s+/).filter(Boolean));

/** True when `word` (lowercase) carries no topic. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** Irregular forms and their base form, so that "paid" meets "pay" and "wrote" meets "write". */
const IRREGULAR_PAIRS = `
paid:pay sent:send spent:spend lent:lend built:build bought:buy brought:bring thought:think
taught:teach caught:catch sold:sell told:tell held:hold kept:keep left:leave lost:lose met:meet
found:find made:make wrote:write written:write broke:break broken:break spoke:speak spoken:speak
chose:choose chosen:choose drove:drive driven:drive gave:give given:give took:take taken:take
began:begin begun:begin ran:run won:win shut:shut hit:hit led:lead fed:feed felt:feel fell:fall
fallen:fall forgot:forget forgotten:forget froze:freeze frozen:freeze grew:grow grown:grow knew:know
known:know drew:draw drawn:draw flew:fly flown:fly shown:show hid:hide hidden:hide rose:rise risen:rise
stole:steal stolen:steal swore:swear tore:tear torn:tear wore:wear worn:wear understood:understand
withdrew:withdraw withdrawn:withdraw undid:undo undone:undo overdid:overdo sought:seek sank:sink
sunk:sink struck:strike stuck:stick shipped:ship hired:hire fired:fire went:go gone:go did:do done:do
saw:see seen:see ate:eat eaten:eat got:get gotten:get people:person children:child women:woman men:man
`;

const IRREGULAR: ReadonlyMap<string, string> = new Map(
  IRREGULAR_PAIRS.split(/\s+/)
    .filter(Boolean)
    .map((pair) => pair.split(':') as [string, string]),
);

/** The base form of an irregular word, or the word itself. */
export function baseForm(word: string): string {
  return IRREGULAR.get(word) ?? word;
}

/** Words the inflection rules would break ("news" is not the plural of "new"). */
export const KEEP_WHOLE: ReadonlySet<string> = new Set([
  'news', 'series', 'species', 'analysis', 'basis', 'crisis', 'thesis', 'diagnosis', 'status', 'bus', 'campus', 'bonus',
  'census', 'virus', 'focus', 'process', 'access', 'business', 'address', 'success', 'less', 'loss', 'class', 'gas',
  'canvas', 'alias', 'atlas', 'chaos', 'ethos', 'lens', 'yes', 'this', 'its', 'was', 'has', 'is', 'us', 'ops', 'sales',
  'always', 'perhaps', 'thing', 'nothing', 'something', 'anything', 'everything', 'morning', 'evening', 'ceiling',
  'bring', 'spring', 'string', 'king', 'ring', 'sing', 'wing', 'swing', 'during', 'bed', 'red', 'need', 'seed', 'feed',
  'speed', 'shed', 'hundred', 'sacred', 'naked', 'wicked',
]);
