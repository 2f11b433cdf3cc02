// Each layer is a target that sees only the layers below it (docs/ARCHITECTURE.md, "Layers"):
// this re-export hands them on, so `import FaceScanKit` gives an app the whole public API.
@_exported import FaceScanTexture
