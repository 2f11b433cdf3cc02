/// Brings a mesh to an exact vertex count (decimation or refinement).
public enum Resample {
    /// Placeholder until decimation lands: returns the mesh unchanged (the report shows the true count).
    public static func toVertexCount(_ mesh: Mesh, _ target: Int) throws -> Mesh { mesh }
}
