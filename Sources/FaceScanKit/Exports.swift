// FaceScanKit is the umbrella an app imports: the library's stage targets depend on the targets they
// use and re-export nothing (docs/ARCHITECTURE.md, "Modules"); this file alone re-exports them, so
// `import FaceScanKit` gives the whole public API.
@_exported import FaceScanAccumulate
@_exported import FaceScanCapture
@_exported import FaceScanCore
@_exported import FaceScanDecimate
@_exported import FaceScanExport
@_exported import FaceScanGate
@_exported import FaceScanInterop
@_exported import FaceScanMeasure
@_exported import FaceScanRender
@_exported import FaceScanSmooth
@_exported import FaceScanSolid
@_exported import FaceScanTexture
