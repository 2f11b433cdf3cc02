import FaceScanCore

/// A depth-only rasteriser for a camera image's view of a mesh: per cell of a grid laid over the
/// image (one cell per `pixelsPerCell` pixels each way), the depth of the nearest front-facing
/// triangle. Colour fusion asks it whether a point of the face was in sight of the camera (the
/// nose hides a cheek).
///
/// Triangles are given in image pixels (u right, v down) with their depth along the view; a
/// cell is covered when its centre is inside the triangle (edge functions in floating point,
/// inclusive), and every vertex also marks its own cell, so triangles smaller than a cell leave
/// no hole in an occluder. Depth is interpolated linearly in the image (the triangles are a few
/// pixels across: the perspective error is far below the test's tolerance). Deterministic:
/// one thread, triangles in order, `min` per cell.
package enum DepthRaster {
    /// Draws the triangles `t` with `draw[t]` into `depth` (`width × height` cells, row-major,
    /// `.infinity` where nothing was drawn; cleared here). `u`, `v`, `z`: per vertex, pixels and
    /// depth; `cellsPerPixel`: cells per pixel (1 / pixels per cell).
    package static func draw(
        triangles: [UInt32], u: [Float], v: [Float], z: [Float], draw: [Bool], cellsPerPixel s: Float,
        width: Int, height: Int, depth: inout [Float]
    ) {
        if depth.count != width * height {
            depth = [Float](repeating: .infinity, count: width * height)
        } else {
            var d = depth.flatMut
            for k in 0..<d.count { d[k] = .infinity }
        }
        let wf = Float(width), hf = Float(height)
        let tri = triangles.flat
        let u = u.flat
        let v = v.flat
        let z = z.flat
        let on = draw.flat
        var d = depth.flatMut
        for t in 0..<(tri.count / 3) where on[t] {
            let a = Int(tri[3 * t]), b = Int(tri[3 * t + 1]), c = Int(tri[3 * t + 2])
            let x0 = u[a] * s, y0 = v[a] * s, x1 = u[b] * s, y1 = v[b] * s
            let x2 = u[c] * s, y2 = v[c] * s
            let z0 = z[a], z1 = z[b], z2 = z[c]
            // Each vertex marks its own cell.
            if x0 >= 0, y0 >= 0, x0 < wf, y0 < hf {
                let k = Int(y0) * width + Int(x0)
                if z0 < d[k] { d[k] = z0 }
            }
            if x1 >= 0, y1 >= 0, x1 < wf, y1 < hf {
                let k = Int(y1) * width + Int(x1)
                if z1 < d[k] { d[k] = z1 }
            }
            if x2 >= 0, y2 >= 0, x2 < wf, y2 < hf {
                let k = Int(y2) * width + Int(x2)
                if z2 < d[k] { d[k] = z2 }
            }
            let area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
            guard area != 0, area.isFinite else { continue }
            let inv = 1 / area
            let lx = max(0, Int((min(x0, x1, x2) - 0.5).rounded(.up)))
            let hx = min(width - 1, Int((max(x0, x1, x2) - 0.5).rounded(.down)))
            let ly = max(0, Int((min(y0, y1, y2) - 0.5).rounded(.up)))
            let hy = min(height - 1, Int((max(y0, y1, y2) - 0.5).rounded(.down)))
            guard lx <= hx, ly <= hy else { continue }
            for py in ly...hy {
                let cy = Float(py) + 0.5
                for px in lx...hx {
                    let cx = Float(px) + 0.5
                    let w0 = ((x1 - cx) * (y2 - cy) - (x2 - cx) * (y1 - cy)) * inv
                    let w1 = ((x2 - cx) * (y0 - cy) - (x0 - cx) * (y2 - cy)) * inv
                    let w2 = 1 - w0 - w1
                    guard w0 >= -1e-5, w1 >= -1e-5, w2 >= -1e-5 else { continue }
                    let zz = w0 * z0 + w1 * z1 + w2 * z2
                    let k = py * width + px
                    if zz < d[k] { d[k] = zz }
                }
            }
        }
    }
}
