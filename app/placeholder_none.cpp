// replaced by the app sources
