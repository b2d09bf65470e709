/**
 * Words that carry no topic: English function words and the filler of chat requests
 * ("hi", "please", "can you help me"), so that small talk leaves no query words and a
 * long chat message is judged on its content words. Only words that never name a task
 * belong here: how common a word is in the library is never a reason to drop it.
 */
const WORDS = `
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

/** The stop-word set, lowercase. */
export const STOP_WORDS: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter(Boolean));

/** True when `word` (lowercase) carries no topic. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}
