import CSIMD

/// A fixed number of plain values that several threads fill, each thread its own slots: the
/// memory is allocated and freed here (a class: it lives as long as the last thread holding it),
/// every access is bounds-checked, and the values leave as an ordinary array (``array``).
///
/// The callers keep the one rule the type cannot check: no slot is written by two threads, nor
/// read by one while another writes it (the columns of a distance field, the bins of the
/// renderer's strips, the decimation's two counts). That is what `@unchecked Sendable` promises;
/// the unsafe pointer code of the steps that share memory between threads stays in this file
/// (CONTRIBUTING.md, "Unsafe code").
package final class SharedSlots<Element: BitwiseCopyable>: @unchecked Sendable {
    @usableFromInline let base: UnsafeMutablePointer<Element>
    /// The number of slots.
    package let count: Int

    /// `count` slots, each `value`.
    package init(repeating value: Element, count: Int) {
        precondition(count >= 0, "negative slot count")
        self.count = count
        base = .allocate(capacity: Swift.max(count, 1))
        base.initialize(repeating: value, count: count)
    }

    /// A slot per element of `values`, holding it.
    package init(_ values: [Element]) {
        count = values.count
        base = .allocate(capacity: Swift.max(count, 1))
        values.withUnsafeBufferPointer { if let v = $0.baseAddress { base.initialize(from: v, count: count) } }
    }

    deinit { base.deallocate() }

    /// Slot `i` (`0 ..< count`, checked).
    @inlinable
    package subscript(i: Int) -> Element {
        get {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "slot out of range")
            return base[i]
        }
        set {
            precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "slot out of range")
            base[i] = newValue
        }
    }

    /// The slots' values, in order (a copy: read it once the threads are done).
    package var array: [Element] { Array(UnsafeBufferPointer(start: base, count: count)) }
}

/// The C kernels (CSIMD) the steps call over arrays: each checks the arrays' sizes and indices
/// against what the kernel reads, then hands it their memory.
package enum VectorKernels {
    /// `rounds` rounds of one-ring averaging of `values` (28 floats, seven 4-lane groups, per
    /// vertex) with the vertex → neighbour CSR `offsets` / `neighbors`, eight lanes at a time
    /// (`facescan_ring_average`, bit-identical to the scalar rounds of
    /// `Taubin.ringAverage(_:adjacency:rounds:vector:)`); nil when the CPU has no AVX, or there
    /// is no vertex or no neighbour.
    package static func ringAverage(
        _ values: [SIMD4<Float>], offsets: [Int32], neighbors: [UInt32], rounds: Int
    ) -> [SIMD4<Float>]? {
        let n = offsets.count - 1
        precondition(n >= 0 && values.count == 7 * n, "28 floats per vertex")
        guard n > 0, !neighbors.isEmpty, facescan_ring_average_available() == 1 else { return nil }
        var previous: Int32 = 0
        for v in 0...n {
            precondition(offsets[v] >= previous && (v > 0 || offsets[0] == 0), "offsets not ascending from 0")
            previous = offsets[v]
        }
        precondition(
            Int(offsets[n]) <= neighbors.count && neighbors.allSatisfy { Int($0) < n }, "neighbour out of range")
        var a = values, b = values
        for _ in 0..<rounds {
            a.withUnsafeBufferPointer { src in
                b.withUnsafeMutableBufferPointer { dst in
                    offsets.withUnsafeBufferPointer { off in
                        neighbors.withUnsafeBufferPointer { nb in
                            src.withMemoryRebound(to: Float.self) { s in
                                dst.withMemoryRebound(to: Float.self) { d in
                                    _ = facescan_ring_average(
                                        s.baseAddress!, d.baseAddress!, off.baseAddress!, nb.baseAddress!, n)
                                }
                            }
                        }
                    }
                }
            }
            swap(&a, &b)
        }
        return a
    }

    /// Decodes `groups` groups of 16 base64 characters from the start of `text` (12 bytes, three
    /// little-endian float32 values each) into `out[0 ..< 3 groups]` (`facescan_base64_floats`, the
    /// AVX2/SSSE3 kernel of `Base64.decodeFloats`): 1 when every character was in the alphabet and
    /// every value finite, 0 when not (the floats then unspecified), −1 when the CPU has neither
    /// kernel (nothing written).
    package static func base64Floats(_ text: Span<UInt8>, groups: Int, into out: inout MutableSpan<Float>) -> Int {
        precondition(groups >= 0 && 16 * groups <= text.count && 3 * groups <= out.count, "groups out of range")
        guard groups > 0 else { return 1 }
        return text.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                Int(facescan_base64_floats(src.baseAddress!, groups, dst.baseAddress!))
            }
        }
    }
}

/// The hot loops' spans of an array: `flat` is `span` and `flatMut` is `mutableSpan` as the
/// standard library gives them (bounds-checked views of the elements, valid while the array is
/// borrowed or, for `flatMut`, exclusively accessed), for the platforms the package supports:
/// `Array.span` and `mutableSpan` need macOS 26 / iOS 26, `Span` and `MutableSpan` themselves are
/// back-deployed. An array the library makes is native, its elements contiguous, so the buffer
/// pointer taken here is the array's own storage, as the standard library's accessors take it.
extension Array {
    /// The elements as a `Span` (the array's `span`).
    @inlinable
    package var flat: Span<Element> {
        @_lifetime(borrow self)
        get {
            let buffer = withUnsafeBufferPointer { $0 }
            return _overrideLifetime(Span(_unsafeElements: buffer), borrowing: self)
        }
    }

    /// The elements as a `MutableSpan` (the array's `mutableSpan`).
    @inlinable
    package var flatMut: MutableSpan<Element> {
        @_lifetime(&self)
        mutating get {
            let buffer = withUnsafeMutableBufferPointer { $0 }
            return _overrideLifetime(MutableSpan(_unsafeElements: buffer), mutating: &self)
        }
    }
}
