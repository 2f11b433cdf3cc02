/// A structural check of binary PLY files before assimp sees them: assimp's PLY loader trusts
/// the element counts and list lengths it reads and runs past the end of a truncated file. The
/// header is parsed, then every element's records are walked (fixed-size elements by arithmetic,
/// elements with lists record by record) and the file must hold them all. ASCII PLY is left to
/// assimp (its tokenizer stops at the end of the text).
enum PLYCheck {
    /// Byte sizes of PLY scalar types.
    static func size(of type: Substring) -> Int? {
        switch type {
        case "char", "uchar", "int8", "uint8": return 1
        case "short", "ushort", "int16", "uint16": return 2
        case "int", "uint", "int32", "uint32", "float", "float32": return 4
        case "double", "float64": return 8
        default: return nil
        }
    }

    struct Property {
        var size: Int  // scalar size, or the list's item size
        var countSize: Int?  // a list's count size
    }

    struct Element {
        var name: String
        var count: Int
        var properties: [Property] = []
    }

    /// Throws when `bytes` is a binary PLY whose body does not hold what its header declares,
    /// naming the element, record and byte. Anything that is not a binary PLY passes.
    static func check(_ bytes: [UInt8], name: String) throws(InputError) {
        guard bytes.starts(with: Array("ply".utf8)),
            let end = bytes.firstRange(of: Array("end_header".utf8))
        else { return }
        // `end_header` ends its line (assimp reads garbage headers out of bounds).
        var bodyStart = end.upperBound
        if bodyStart < bytes.count && bytes[bodyStart] == 0x0D { bodyStart += 1 }
        guard bodyStart >= bytes.count || bytes[bodyStart] == 0x0A else {
            throw InputError(file: name, "PLY header: 'end_header' is not followed by a line end (byte \(bodyStart))")
        }
        bodyStart += 1
        let header = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
        var littleEndian = true, binary = false
        var elements: [Element] = []
        // "\r\n" is one Character in a Swift string: a CRLF header's lines end there too.
        for (n, raw) in header.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).enumerated() {
            let w = raw.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let head = w.first else { continue }
            let line = n + 1
            switch head {
            case "ply", "comment", "obj_info":
                continue
            case "format":
                guard w.count == 3, ["ascii", "binary_little_endian", "binary_big_endian"].contains(w[1]) else {
                    throw InputError(
                        file: name,
                        "header line \(line): expected 'format ascii|binary_little_endian|binary_big_endian 1.0'")
                }
                binary = w[1] != "ascii"
                littleEndian = w[1] != "binary_big_endian"
            case "element":
                guard w.count >= 3, let c = Int(w[2]), c >= 0 else {
                    throw InputError(file: name, "header line \(line): element needs a name and a count")
                }
                elements.append(Element(name: String(w[1]), count: c))
            case "property":
                guard !elements.isEmpty else {
                    throw InputError(file: name, "header line \(line): property before any element")
                }
                if w.count >= 5 && w[1] == "list" {
                    guard let cs = size(of: w[2]), let s = size(of: w[3]) else {
                        throw InputError(file: name, "header line \(line): unknown list type")
                    }
                    elements[elements.count - 1].properties.append(Property(size: s, countSize: cs))
                } else {
                    guard w.count >= 3, let s = size(of: w[1]) else {
                        throw InputError(file: name, "header line \(line): unknown property type")
                    }
                    elements[elements.count - 1].properties.append(Property(size: s, countSize: nil))
                }
            default:
                throw InputError(
                    file: name,
                    "header line \(line): unknown keyword '\(head.prefix(32))' (a PLY header holds format, element, property, comment and obj_info lines)"
                )
            }
        }
        guard elements.contains(where: { $0.name == "vertex" }) else {
            throw InputError(file: name, "PLY header declares no 'vertex' element")
        }
        guard binary else { return }
        var at = bodyStart
        let total = bytes.count
        for e in elements {
            if e.properties.allSatisfy({ $0.countSize == nil }) {
                let record = e.properties.reduce(0) { $0 + $1.size }
                let (need, overflow) = e.count.multipliedReportingOverflow(by: record)
                guard !overflow, need <= total - at else {
                    throw InputError(
                        file: name,
                        "element '\(e.name)': \(e.count) records of \(record) bytes run past the end of the file (byte \(total))"
                    )
                }
                at += need
                continue
            }
            // At least one byte per list count: a count beyond what is left is refused at once.
            guard e.count <= total - at else {
                throw InputError(
                    file: name, "element '\(e.name)': \(e.count) records cannot fit in the \(total - at) bytes left")
            }
            for r in 0..<e.count {
                for p in e.properties {
                    if let cs = p.countSize {
                        guard cs <= total - at else {
                            throw InputError(
                                file: name,
                                "element '\(e.name)' record \(r): list count past the end of the file (byte \(at))")
                        }
                        var c = 0
                        for k in 0..<cs {
                            let b = Int(bytes[at + (littleEndian ? k : cs - 1 - k)])
                            c |= b << (8 * k)
                        }
                        if cs > 1, c >> (8 * cs - 1) == 1, cs < 8 { c = -1 }  // a negative signed count
                        guard c >= 0 else {
                            throw InputError(
                                file: name, "element '\(e.name)' record \(r): negative list count (byte \(at))")
                        }
                        at += cs
                        guard c <= (total - at) / p.size else {
                            throw InputError(
                                file: name,
                                "element '\(e.name)' record \(r): list of \(c) values runs past the end of the file (byte \(at))"
                            )
                        }
                        at += c * p.size
                    } else {
                        guard p.size <= total - at else {
                            throw InputError(
                                file: name,
                                "element '\(e.name)' record \(r): runs past the end of the file (byte \(at))")
                        }
                        at += p.size
                    }
                }
            }
        }
    }
}
