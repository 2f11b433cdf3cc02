import FaceScanCapture
import FaceScanCore
import FaceScanTexture

#if JPEG
import CTurboJPEG
#endif

/// Decodes a capture's camera image (a frame's `image`: JPEG through libjpeg-turbo, PNG through
/// libpng) into a ``CameraImage``, checked against the camera that took it.
///
/// The header is read first: a size other than the camera's `imageResolution`, or one above
/// ``FrameCamera/maximumSide``, is refused before any pixel is allocated, so a file declaring
/// 100 000 × 100 000 pixels costs nothing. JPEG is decoded with `TJFLAG_STOPONWARNING` (a
/// truncated or corrupt stream is an error, not a grey half) and `TJFLAG_LIMITSCANS` (a
/// progressive file with thousands of scans is refused): time and memory are bounded by the
/// declared size. The IDCT is libjpeg-turbo's accurate one (`TJFLAG_ACCURATEDCT`): the fast one
/// blurs and rounds the fine detail the texture is made of.
package enum ImageDecoder {
    /// The image in `bytes`, which must be `camera.width × camera.height`. Errors name `file`,
    /// `frame` and the field `image`.
    package static func decode(_ bytes: [UInt8], camera: FrameCamera, file: String, frame: Int)
        throws(FaceScanError) -> CameraImage
    {
        switch try decodeChecked(bytes, camera: camera, file: file, frame: frame) {
        case .success(let image): return image
        case .failure(let problem): throw .badInput(problem.error)
        }
    }

    /// The image in `bytes`, as ``decode(_:camera:file:frame:)`` reads it, or what is wrong with
    /// it (why, and the error naming `file`, `frame` and the field `image`); throws only for a
    /// build without the decoder (``FaceScanError/withoutTrait(_:library:trait:)``).
    package static func decodeChecked(_ bytes: [UInt8], camera: FrameCamera, file: String, frame: Int)
        throws(FaceScanError) -> Result<CameraImage, ImageProblem>
    {
        func bad(_ failure: BadImage) -> Result<CameraImage, ImageProblem> {
            .failure(
                ImageProblem(
                    reason: failure.reason,
                    error: InputError(file: file, frame: frame, field: "image", failure.message)))
        }
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF {
            #if JPEG
            do throws(BadImage) {
                return .success(try jpeg(bytes, camera: camera))
            } catch {
                return bad(error)
            }
            #else
            throw .withoutTrait("\(file): frame \(frame): reading a JPEG image", library: "libturbojpeg", trait: "JPEG")
            #endif
        }
        if bytes.count >= 8, Array(bytes[0..<8]) == PNGEncoder.signature {
            #if PNG
            do throws(BadImage) {
                return .success(try png(bytes, camera: camera))
            } catch {
                return bad(error)
            }
            #else
            throw .withoutTrait("\(file): frame \(frame): reading a PNG image", library: "libpng", trait: "PNG")
            #endif
        }
        let head = bytes.prefix(4).map { String($0, radix: 16) }.joined(separator: " ")
        return bad(BadImage(.corrupt, "neither JPEG nor PNG (\(bytes.count) bytes, starting \(head))"))
    }

    /// A decoder's refusal: why (the report's reason) and the message.
    struct BadImage: Error {
        var reason: BadImageReason
        var message: String
        init(_ reason: BadImageReason, _ message: String) {
            self.reason = reason
            self.message = message
        }
    }

    static func checkSize(_ w: Int, _ h: Int, _ camera: FrameCamera, _ kind: String) throws(BadImage) {
        guard w > 0, h > 0, w <= FrameCamera.maximumSide, h <= FrameCamera.maximumSide else {
            throw BadImage(
                .oversized, "\(kind) declares \(w) × \(h) pixels (at most \(FrameCamera.maximumSide) a side)")
        }
        guard w == camera.width, h == camera.height else {
            throw BadImage(
                .wrongSize,
                "\(kind) is \(w) × \(h) pixels, but camera.imageResolution says \(camera.width) × \(camera.height)")
        }
    }

    #if JPEG
    static func jpeg(_ bytes: [UInt8], camera: FrameCamera) throws(BadImage) -> CameraImage {
        guard let decoder = ImageLibraries.JPEGDecoder() else {
            throw BadImage(.corrupt, "libturbojpeg could not start")
        }
        guard let (width, height) = decoder.header(bytes) else {
            throw BadImage(.corrupt, "not a readable JPEG: \(decoder.message)")
        }
        try checkSize(width, height, camera, "JPEG")
        // The accurate integer IDCT (no TJFLAG_FASTDCT): the fast one's rounding costs the fused
        // texture ΔE 0.1 mean, 0.3 p95 (docs/ALGORITHMS.md, "Colour").
        let flags = Int32(TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS | TJFLAG_ACCURATEDCT)
        guard let rgb = decoder.rgb(bytes, width: width, height: height, flags: flags) else {
            throw BadImage(.corrupt, "JPEG decoding failed: \(decoder.message)")
        }
        return CameraImage(uncheckedRGB: rgb, width: width, height: height)
    }
    #endif

    #if PNG
    static func png(_ bytes: [UInt8], camera: FrameCamera) throws(BadImage) -> CameraImage {
        let (rgb, width, height) = try ImageLibraries.decodePNG(
            bytes, channels: 3, fail: { BadImage(.corrupt, $0) },
            accept: { (w, h) throws(BadImage) in try checkSize(w, h, camera, "PNG") })
        return CameraImage(uncheckedRGB: rgb, width: width, height: height)
    }
    #endif
}
