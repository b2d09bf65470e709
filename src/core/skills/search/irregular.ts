/**
 * Irregular English verb forms mapped to their base form before stemming, so that
 * "paid" meets "pay" and "wrote" meets "write" (the Porter stemmer only strips suffixes).
 */
const PAIRS = `
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

/** Irregular form → base form. */
export const IRREGULAR: ReadonlyMap<string, string> = new Map(
  PAIRS.split(/\s+/)
    .filter(Boolean)
    .map((pair) => pair.split(':') as [string, string]),
);

/** The base form of an irregular word, or the word itself. */
export function baseForm(word: string): string {
  return IRREGULAR.get(word) ?? word;
}
