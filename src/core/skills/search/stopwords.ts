/**
 * Words that carry no topic: English function words plus the filler of chat requests
 * ("hi", "please", "can you help me"), so that small talk leaves no query terms and a
 * long chat message is judged on its content words only.
 */
const WORDS = `
a about above after again against all almost also although always am among an and any anybody anyone
anything anyway are aren around as at be because been before being below between both but by can cannot
cant could couldn did didn do does doesn doing don done during each either else even ever every
everyone everything few for from further get gets getting got gonna had hadn has hasn have haven having he
her here hers herself him himself his how however i id if im in into is isn it its itself ive just let lets
ll me might mine more most much must my myself neither no nor not nothing now of off often on once only or
other others otherwise our ours ourselves out over own per perhaps please quite rather re really s same
shall she should shouldn since so some somebody someone something sometimes somewhat soon still such sure
t than that thats the their theirs them themselves then there these they thing things this those though
through thus to too under until up upon us very via was wasn way we were weren what whatever when whenever
where whether which while who whoever whom whose why will with within without won would wouldn yes yet you
your yours yourself yourselves ve d m o y
hi hello hey hiya thanks thank thx cheers ok okay please pls kindly dear folks guys
need needs needed want wants wanted like help helps helping know knows think thought guess
wonder wondering tell show give gave make makes made do go going goes went come came take took put
try trying tried able possible maybe anyway actually basically literally honestly just quick quickly
lot lots bit little big great good nice cool awesome fine well bad new old
today tomorrow yesterday now right later asap morning afternoon evening week weekend
one two three first second also again still already yet ever never
`;

/** The stop-word set, lowercase. */
export const STOP_WORDS: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter(Boolean));

/** True when `word` (lowercase) carries no topic. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}
