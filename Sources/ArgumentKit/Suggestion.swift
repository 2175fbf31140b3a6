/// "Did you mean" for mistyped subcommands and options, as git and swift-argument-parser offer: the candidates
/// closest to the word by edit distance (insertions, deletions, substitutions and swaps of two neighbours each
/// count 1), or the only candidate the word is a prefix of.
enum Suggestion {
    /// The candidates worth suggesting for `word`, best first; empty when none is close.
    ///
    /// A candidate is close when its distance is at most a third of the word's length (at least 1, at most 3):
    /// `chek` → `check`, `formt` → `format`, but `x` suggests nothing.
    static func closest(to word: String, among candidates: [String]) -> [String] {
        let typed = Array(word.lowercased().unicodeScalars)
        guard !typed.isEmpty else { return [] }
        let limit = max(1, min(3, typed.count / 3))
        var best: [String] = []
        var bestDistance = Int.max
        for candidate in candidates where candidate != word {
            let distance = Self.distance(typed, Array(candidate.lowercased().unicodeScalars))
            guard distance <= limit else { continue }
            if distance < bestDistance {
                (best, bestDistance) = ([candidate], distance)
            } else if distance == bestDistance {
                best.append(candidate)
            }
        }
        if best.isEmpty && typed.count >= 3 {
            let extending = candidates.filter { $0 != word && $0.lowercased().hasPrefix(word.lowercased()) }
            if extending.count == 1 { best = extending }
        }
        return best
    }

    /// `. Did you mean 'check'?` (or `'a' or 'b'`), to end an error message; empty when nothing is close.
    static func sentence(for word: String, among candidates: [String], prefix: String = "") -> String {
        let close = closest(to: word, among: candidates)
        guard !close.isEmpty else { return "" }
        let quoted = close.prefix(3).map { "'\(prefix)\($0)'" }
        let list = quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
        return ". Did you mean \(list)?"
    }

    /// The optimal-string-alignment distance between `a` and `b` (Levenshtein plus adjacent transpositions).
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
