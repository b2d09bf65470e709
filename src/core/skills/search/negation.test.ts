import { describe, expect, it } from 'vitest';
import { negatedStems } from './negation.js';

describe('negatedStems', () => {
  it('finds the word right after a negation, contractions included', () => {
    expect(negatedStems('customer left and did not renew')).toEqual(['renew']);
    expect(negatedStems("a client still hasn't paid us")).toEqual(['pay']);
    expect(negatedStems('the contract ends and we won’t renew')).toEqual(['renew']);
    expect(negatedStems('close the bank account we never open')).toEqual(['open']);
  });

  it('skips auxiliaries and adverbs between the negation and its word', () => {
    expect(negatedStems('they did not even renew')).toEqual(['renew']);
    expect(negatedStems('the customer no longer wants to pay')).toEqual([]);
  });

  it('negates nothing a skill is named for when an auxiliary is followed by a function word', () => {
    expect(negatedStems("I've never done a structured interview before")).toEqual([]);
    expect(negatedStems('chase overdue invoices')).toEqual([]);
  });
});
