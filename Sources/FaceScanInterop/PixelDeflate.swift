import FaceScanCore

/// A zlib stream (RFC 1950) holding one deflate block (RFC 1951) with Huffman codes built for
/// its data, made for the filtered rows of a rendering: the only matches are repeats of the
/// pixel before (distance 4), which is what a flat background, a flat colour and a row equal to
/// the one above (zeros once Up-filtered) are made of. It needs no match search (no hash
/// table): one pass finds the repeats and counts the symbols, a second writes the codes.
///
/// Any inflater reads it; the same data always gives the same bytes (no dependence on a zlib
/// release).
enum PixelDeflate {
    /// The shortest repeat written as a match: a shorter one costs about as many bits as its
    /// literals.
    static let minimumRun = 4

    /// Data from which both passes run in two halves on two threads (below, a thread's start
    /// costs about what it saves).
    static let twoThreadBytes = 1 << 18

    /// The zlib stream of `data`.
    static func zlib(_ data: [UInt8]) -> [UInt8] { data.withUnsafeBufferPointer { zlib($0) } }

    /// The zlib stream of `data`; from ``twoThreadBytes`` on (or as `halves` says) in two halves
    /// on two threads, with the same bytes.
    ///
    /// The second half starts at the first byte `p` past the middle that differs from the byte 4
    /// before it. No run covers such a byte, so the one-pass scan starts a token there and makes a
    /// literal of it: the halves' tokens, one after the other, are the whole scan's, and their
    /// counts add up to its counts. Each half also sums its Adler-32 (combined after). Once the
    /// codes are built, each half writes its tokens' codes, the first after the headers into the
    /// stream, the second into a buffer of its own, whose bits are then appended to the first's.
    static func zlib(_ data: UnsafeBufferPointer<UInt8>, halves: Bool? = nil) -> [UInt8] {
        let n = data.count
        let p = secondHalf(data)
        let pair = (halves ?? (n >= twoThreadBytes)) && p < n ? Parallel.Pair() : nil
        let bounds = pair == nil ? [0, n, n] : [0, p, n]
        // Pass 1: tokens (a literal byte, or 256 + length − 3 for a run at distance 4) at the
        // start of each half's bytes, per half its symbol counts, token count and Adler-32.
        let m = 286
        let tokens = UnsafeMutablePointer<UInt16>.allocate(capacity: max(n, 1))
        let side = UnsafeMutableBufferPointer<Int>.allocate(capacity: 2 * m + 4)
        defer {
            tokens.deallocate()
            side.deallocate()
        }
        side.initialize(repeating: 0)
        side[2 * m + 2] = 1  // the Adler-32 of no bytes
        side[2 * m + 3] = 1
        let input = DisjointSlots(base: UnsafeMutableBufferPointer(mutating: data))
        let shared = DisjointSlots(base: side)
        let out = DisjointSlots(base: UnsafeMutableBufferPointer(start: tokens, count: max(n, 1)))
        Parallel.both(on: pair) { k in
            let (from, to) = (bounds[k], bounds[k + 1])  // without a pair, side 1's is empty
            guard from < to, let d = input.base.baseAddress else { return }
            let counts = UnsafeMutableBufferPointer(rebasing: shared.base[(k * m)..<(k * m + m)])
            shared.base[2 * m + k] = tokenize(
                UnsafePointer(d), from: from, to: to, into: out.base.baseAddress! + from, counts: counts)
            shared.base[2 * m + 2 + k] = Int(
                ImageLibraries.adler32(UnsafeBufferPointer(rebasing: input.base[from..<to])))
        }
        var literalCounts = (0..<m).map { side[$0] &+ side[m + $0] }
        literalCounts[256] = 1  // end of block
        let codes = BlockCodes(literalCounts)
        let tokenCounts = [side[2 * m], side[2 * m + 1]]
        let adler: UInt32 =
            pair == nil
            ? UInt32(truncatingIfNeeded: side[2 * m + 2])
            : ImageLibraries.adler32Combine(
                UInt32(truncatingIfNeeded: side[2 * m + 2]), UInt32(truncatingIfNeeded: side[2 * m + 3]), n - p)
        // Pass 2: at most 15 bits a byte, and the block's header. The second half's codes go to
        // a buffer of their own (positions and pending bits of both writers in `written`).
        let secondBytes = pair == nil ? 0 : 2 * (n - p) + 64
        let second = UnsafeMutablePointer<UInt8>.allocate(capacity: max(secondBytes, 1))
        let written = UnsafeMutableBufferPointer<Int>.allocate(capacity: 6)
        defer {
            second.deallocate()
            written.deallocate()
        }
        return [UInt8](unsafeUninitializedCapacity: 2 * n + 4096) { o, count in
            let state = DisjointSlots(base: written)
            let first = DisjointSlots(base: o), rest = DisjointSlots(base: .init(start: second, count: secondBytes))
            Parallel.both(on: pair) { k in
                guard k == 0 || pair != nil else { return }  // one stream: side 0 writes it all
                var w = BitWriter(k == 0 ? first.base.baseAddress! : rest.base.baseAddress!)
                if k == 0 {
                    w.byte(0x78)  // deflate, 32 KiB window
                    w.byte(0x01)  // fastest compression, no dictionary; (0x78 · 256 + 0x01) % 31 == 0
                    codes.writeHeader(&w)
                }
                if bounds[k] < bounds[k + 1] {
                    codes.writeTokens(out.base.baseAddress! + bounds[k], tokenCounts[k], &w)
                }
                if k == 1 || pair == nil { codes.writeEnd(&w) }  // the end of the block
                state.base[3 * k] = w.position
                state.base[3 * k + 1] = Int(truncatingIfNeeded: w.pending)
                state.base[3 * k + 2] = w.count
            }
            var w = BitWriter(
                o.baseAddress!, position: written[0], pending: UInt64(UInt(bitPattern: written[1])), count: written[2])
            if pair != nil {
                w.append(
                    second, position: written[3], pending: UInt64(UInt(bitPattern: written[4])), count: written[5])
            }
            w.alignToByte()
            for shift in [24, 16, 8, 0] { w.byte(UInt8(truncatingIfNeeded: adler >> UInt32(shift))) }
            count = w.position
        }
    }

    /// Where the second half of `data` starts: the first byte past the middle that differs from
    /// the byte 4 before it (`data.count` when there is none).
    static func secondHalf(_ data: UnsafeBufferPointer<UInt8>) -> Int {
        let n = data.count
        var middle = max(4, n / 2)
        while middle < n && data[middle] == data[middle - 4] { middle += 1 }
        return min(middle, n)
    }

    /// Cuts `d[start..<end]`, starting a token at `start`, into tokens (a literal byte, or 256 +
    /// length − 3 for a run at distance 4 of at least ``minimumRun``), counting their
    /// literal/length symbols into `counts`. Returns how many.
    static func tokenize(
        _ d: UnsafePointer<UInt8>, from start: Int, to n: Int, into tokens: UnsafeMutablePointer<UInt16>,
        counts: UnsafeMutableBufferPointer<Int>
    ) -> Int {
        var tokenCount = 0
        lengthSymbol.withUnsafeBufferPointer { symbol in
            var i = start
            while i < n {
                if i >= 4 && d[i] == d[i - 4] {
                    let run = repeatLength(d, i, n)
                    if run >= minimumRun {
                        tokens[tokenCount] = UInt16(256 + run - 3)
                        tokenCount &+= 1
                        counts[Int(symbol[run])] &+= 1
                        i += run
                        continue
                    }
                }
                tokens[tokenCount] = UInt16(d[i])
                tokenCount &+= 1
                counts[Int(d[i])] &+= 1
                i &+= 1
            }
        }
        return tokenCount
    }

    /// How many bytes from `i` (at most 258, not past `n`) repeat the byte 4 before them, given that
    /// `d[i]` does: 8 bytes at a time, then byte by byte.
    @inline(__always)
    static func repeatLength(_ d: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Int {
        let limit = min(n, i + 258)
        var j = i + 1
        while j + 8 <= limit {
            let x = load8(d + j) ^ load8(d + j - 4)
            if x != 0 { return j + (x.trailingZeroBitCount >> 3) - i }
            j += 8
        }
        while j < limit && d[j] == d[j - 4] { j += 1 }
        return j - i
    }

    /// The Huffman codes of one block, built from its literal/length counts: literals/lengths from
    /// the counts; distances 0 and 3 one bit each (3, distance 4, is the only one used; two codes
    /// make the code complete); the code-length code that sends them.
    struct BlockCodes {
        let literalLengths: [UInt8]
        let literalCodes: [UInt16]
        static let distanceLengths: [UInt8] = [1, 0, 0, 1]
        /// Literal/length codes sent (257…286).
        let literals: Int
        /// The code lengths sent: the literals' then the distances'.
        let lengths: [UInt8]
        let clLengths: [UInt8]
        let clCodes: [UInt16]
        /// Code-length code lengths sent (4…19, in ``PixelDeflate/clOrder``).
        let clCount: Int
        /// A run of length L as one write: its length code, extra bits and the distance code.
        var runBits = [UInt64](repeating: 0, count: 259)
        var runWidth = [UInt8](repeating: 0, count: 259)

        init(_ literalCounts: [Int]) {
            literalLengths = codeLengths(literalCounts, limit: 15)
            literalCodes = canonicalCodes(literalLengths)
            var literals = 286
            while literals > 257 && literalLengths[literals - 1] == 0 { literals -= 1 }
            self.literals = literals
            lengths = Array(literalLengths[0..<literals]) + Self.distanceLengths
            var lengthCounts = [Int](repeating: 0, count: 19)
            for l in lengths { lengthCounts[Int(l)] += 1 }
            clLengths = codeLengths(lengthCounts, limit: 7)
            clCodes = canonicalCodes(clLengths)
            var clCount = 19
            while clCount > 4 && clLengths[Int(clOrder[clCount - 1])] == 0 { clCount -= 1 }
            self.clCount = clCount
            let distanceCode = UInt64(canonicalCodes(Self.distanceLengths)[3])
            for run in 3...258 {
                let s = Int(lengthSymbol[run]), extra = Int(lengthExtra[s - 257])
                let codeWidth = Int(literalLengths[s])
                guard codeWidth > 0 else { continue }
                var bits = UInt64(literalCodes[s])
                bits |= UInt64(run - Int(lengthBase[s - 257])) << codeWidth
                bits |= distanceCode << (codeWidth + extra)
                runBits[run] = bits
                runWidth[run] = UInt8(codeWidth + extra + Int(Self.distanceLengths[3]))
            }
        }

        /// The block's header: last block, Huffman codes of its own, and the code lengths.
        func writeHeader(_ w: inout BitWriter) {
            w.put(1, 1)  // the last block
            w.put(2, 2)  // Huffman codes of its own
            w.put(UInt64(literals - 257), 5)
            w.put(UInt64(Self.distanceLengths.count - 1), 5)
            w.put(UInt64(clCount - 4), 4)
            for k in 0..<clCount { w.put(UInt64(clLengths[Int(clOrder[k])]), 3) }
            for l in lengths { w.put(UInt64(clCodes[Int(l)]), Int(clLengths[Int(l)])) }
        }

        /// The codes of `tokens[0..<count]`.
        func writeTokens(_ tokens: UnsafeMutablePointer<UInt16>, _ count: Int, _ w: inout BitWriter) {
            literalCodes.withUnsafeBufferPointer { code in
                literalLengths.withUnsafeBufferPointer { width in
                    runBits.withUnsafeBufferPointer { rb in
                        runWidth.withUnsafeBufferPointer { rw in
                            for t in 0..<count {
                                let token = Int(tokens[t])
                                if token < 256 {
                                    w.put(UInt64(code[token]), Int(width[token]))
                                } else {
                                    let run = token - 253
                                    w.put(rb[run], Int(rw[run]))
                                }
                            }
                        }
                    }
                }
            }
        }

        /// The end of the block.
        func writeEnd(_ w: inout BitWriter) { w.put(UInt64(literalCodes[256]), Int(literalLengths[256])) }
    }

    /// Bits written least significant first, as deflate packs them.
    struct BitWriter {
        let out: UnsafeMutablePointer<UInt8>
        var position = 0
        var pending: UInt64 = 0
        var count = 0

        init(_ out: UnsafeMutablePointer<UInt8>) { self.out = out }

        /// A writer that goes on where one left off: `position` bytes written, `count` bits pending.
        init(_ out: UnsafeMutablePointer<UInt8>, position: Int, pending: UInt64, count: Int) {
            self.out = out
            self.position = position
            self.pending = pending
            self.count = count
        }

        /// Appends the bits another writer wrote to `bytes`: its `position` bytes (whole 32-bit
        /// words, as ``put(_:_:)`` writes them), then its `count` pending bits.
        mutating func append(_ bytes: UnsafePointer<UInt8>, position: Int, pending: UInt64, count: Int) {
            var i = 0
            while i + 4 <= position {
                put(UInt64(UInt32(littleEndian: UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt32.self))), 32)
                i += 4
            }
            while i < position {
                put(UInt64(bytes[i]), 8)
                i += 1
            }
            put(pending, count)
        }

        /// Writes the low `width` (at most 32) bits of `bits`.
        @inline(__always)
        mutating func put(_ bits: UInt64, _ width: Int) {
            pending |= bits << UInt64(count)
            count &+= width
            if count >= 32 {
                UnsafeMutableRawPointer(out + position).storeBytes(
                    of: UInt32(truncatingIfNeeded: pending).littleEndian, as: UInt32.self)
                position &+= 4
                pending >>= 32
                count &-= 32
            }
        }

        /// Pads to a whole byte with zero bits and writes what is pending.
        mutating func alignToByte() {
            while count > 0 {
                out[position] = UInt8(truncatingIfNeeded: pending)
                position += 1
                pending >>= 8
                count -= 8
            }
            pending = 0
            count = 0
        }

        /// A whole byte (only at a byte boundary).
        mutating func byte(_ b: UInt8) {
            precondition(count == 0, "byte writes only at a byte boundary")
            out[position] = b
            position += 1
        }
    }

    /// Code lengths of a Huffman code for symbols counted `counts` (0: unused), none longer
    /// than `limit`: the counts are halved (rounding up, so no used symbol vanishes) until
    /// Huffman's lengths fit, which they do once the counts are near equal.
    static func codeLengths(_ counts: [Int], limit: Int) -> [UInt8] {
        var c = counts
        while true {
            let lengths = huffmanLengths(c)
            if Int(lengths.max() ?? 0) <= limit { return lengths }
            for i in c.indices where c[i] > 0 { c[i] = (c[i] + 1) / 2 }
        }
    }

    /// Huffman's code lengths for `counts` (the two least weights merged first, the smaller
    /// symbol first on equal weights, so the lengths depend on the counts only); one used symbol
    /// gets length 1.
    static func huffmanLengths(_ counts: [Int]) -> [UInt8] {
        var lengths = [UInt8](repeating: 0, count: counts.count)
        var symbols = counts.indices.filter { counts[$0] > 0 }
        guard symbols.count > 1 else {
            if let s = symbols.first { lengths[s] = 1 }
            return lengths
        }
        symbols.sort { (counts[$0], $0) < (counts[$1], $1) }
        let m = symbols.count
        // Nodes 0..<m are the leaves in order of weight, m..<2m−1 the merged nodes in the order
        // made (their weights never decrease): two sorted queues.
        var weight = symbols.map { counts[$0] } + [Int](repeating: 0, count: m - 1)
        var parent = [Int](repeating: 0, count: 2 * m - 1)
        var leaf = 0, merged = m, next = m
        func least() -> Int {
            if leaf < m && (merged == next || weight[leaf] <= weight[merged]) {
                leaf += 1
                return leaf - 1
            }
            merged += 1
            return merged - 1
        }
        while next < 2 * m - 1 {
            let a = least(), b = least()
            weight[next] = weight[a] + weight[b]
            parent[a] = next
            parent[b] = next
            next += 1
        }
        var depth = [Int](repeating: 0, count: 2 * m - 1)
        for i in stride(from: 2 * m - 3, through: 0, by: -1) { depth[i] = depth[parent[i]] + 1 }
        for k in 0..<m { lengths[symbols[k]] = UInt8(depth[k]) }
        return lengths
    }

    /// Canonical Huffman codes (RFC 1951 §3.2.2) for `lengths`, bit-reversed for writing least
    /// significant bit first.
    static func canonicalCodes(_ lengths: [UInt8]) -> [UInt16] {
        var perLength = [Int](repeating: 0, count: 16)
        for l in lengths where l > 0 { perLength[Int(l)] += 1 }
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for bits in 1..<16 {
            code = (code + perLength[bits - 1]) << 1
            next[bits] = code
        }
        var codes = [UInt16](repeating: 0, count: lengths.count)
        for (s, l) in lengths.enumerated() where l > 0 {
            let c = next[Int(l)]
            next[Int(l)] += 1
            var reversed = 0
            for b in 0..<Int(l) where c & (1 << b) != 0 { reversed |= 1 << (Int(l) - 1 - b) }
            codes[s] = UInt16(reversed)
        }
        return codes
    }

    @inline(__always)
    static func load8(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    /// The order in which the code-length code's lengths are written.
    static let clOrder: [UInt8] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
    /// First length of each length symbol 257…285, and its extra bits.
    static let lengthBase: [UInt16] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    static let lengthExtra: [UInt8] = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ]
    /// The length symbol of each length 3…258 (0…2 unused).
    static let lengthSymbol: [UInt16] = {
        var s = [UInt16](repeating: 0, count: 259)
        for length in 3...258 {
            var k = 28
            while Int(lengthBase[k]) > length { k -= 1 }
            s[length] = UInt16(257 + k)
        }
        return s
    }()
}
