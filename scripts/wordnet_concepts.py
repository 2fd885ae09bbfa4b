#!/usr/bin/env python3
"""Makes crates/fingerprint/data/wordnet-en.txt.gz, the English word neighbours alignment uses.

Usage: scripts/wordnet_concepts.py [WORDNET_DIR] > table.txt   (then gzip -9 -n)
WORDNET_DIR defaults to /usr/share/wordnet (Debian package wordnet-base, WordNet 3.0).

One line per one-word lemma (lowercased; multi-word and hyphenated lemmas are left out,
as the normalizer splits them): the word, the hexadecimal ids of its own synsets
(sorted), then ";" and the ids of the synsets related to them that are not its own
(sorted): hypernyms (@, @i), antonyms (!) and similar synsets (&, adjectives). A concept
id is the part of speech (noun 0, verb 1, adjective 2, adverb 3) times 2^24 plus the
synset's byte offset in its data file. Two words are neighbours when one's own synset is
the other's own or related synset: synonyms share a synset, a word is its hypernym's
hyponym, opposites point at each other. Two hyponyms of one word ("dog", "wolf") are not
neighbours: they share only a related synset. Deterministic: sorted words, sorted ids.
"""
import sys

POS = {"noun": 0, "verb": 1, "adj": 2, "adv": 3}
PTR_POS = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
RELATIONS = {"@", "@i", "!", "&"}


def concept(pos, offset):
    return (POS[pos] << 24) | int(offset)


def main():
    wordnet = (sys.argv[1] if len(sys.argv) > 1 else "/usr/share/wordnet").rstrip("/") + "/"
    related = {}
    words = {}
    for pos in POS:
        with open(wordnet + "data." + pos, encoding="latin-1") as data:
            for line in data:
                if line.startswith("  "):  # licence header
                    continue
                fields = line.split(" | ")[0].split()
                synset = concept(pos, fields[0])
                count = int(fields[3], 16)
                lemmas = [fields[4 + 2 * i] for i in range(count)]
                k = 4 + 2 * count
                pointers = int(fields[k])
                k += 1
                rel = []
                for _ in range(pointers):
                    symbol, offset, ptr_pos, _source_target = fields[k:k + 4]
                    k += 4
                    if symbol in RELATIONS:
                        rel.append(concept(PTR_POS[ptr_pos], offset))
                related[synset] = rel
                for lemma in lemmas:
                    word = lemma.lower()
                    if "(" in word:  # adjective markers: (a), (p), (ip)
                        word = word[: word.index("(")]
                    if "_" in word or "-" in word:
                        continue
                    words.setdefault(word, set()).add(synset)
    out = sys.stdout
    for word in sorted(words):
        own = words[word]
        rel = set()
        for synset in own:
            rel.update(related.get(synset, ()))
        rel -= own
        out.write(word + " " + " ".join("%x" % c for c in sorted(own)))
        out.write(" ; " + " ".join("%x" % c for c in sorted(rel)) + "\n")


if __name__ == "__main__":
    main()
