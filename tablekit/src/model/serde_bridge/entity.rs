//! [`Serde`]: the entity of a serde model, so a `Table` of it reads and writes the model.

use std::fmt;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{de, ser, SerdeError};
use crate::model::table_model::{TableEntity, TableModel};
use crate::values::entity::DynamicEntity;

/// The entity of a serde model `T`: `client.table_named::<Serde<T>>(name)` reads and writes
/// it as `#[derive(TableEntity)]` models are read and written, without the derive.
///
/// Like the derive's entities it wraps the [`DynamicEntity`] the service returned, so
/// [`set_model`](Self::set_model) after [`model`](Self::model) keeps the properties `T` does
/// not name, and the ETag read travels into a conditional replace.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let client = emulator.client();
/// use tablekit::serde_bridge::Serde;
///
/// #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
/// #[serde(rename_all = "PascalCase")]
/// struct Gamer { partition_key: String, row_key: String, score: i64 }
///
/// let table = client.table_named::<Serde<Gamer>>("Gamers");
/// table.create().await?;
/// let gamer = Gamer { partition_key: "eu".into(), row_key: "dragon".into(), score: 1 };
/// table.insert(&mut Serde::from_model(&gamer)?).await?;
///
/// let mut read = table.get("eu", "dragon").await?.expect("stored");
/// let mut model = read.model()?;
/// assert_eq!(model, gamer);
/// model.score += 1;
/// read.set_model(&model)?;
/// table.replace(&mut read).await?; // only if no one wrote it since it was read
/// assert_eq!(table.get("eu", "dragon").await?.expect("stored").model()?.score, 2);
/// # Ok(()) }
/// ```
pub struct Serde<T> {
    dynamic: DynamicEntity,
    model: PhantomData<fn() -> T>,
}

impl<T> Serde<T> {
    fn of(dynamic: DynamicEntity) -> Self {
        Serde {
            dynamic,
            model: PhantomData,
        }
    }

    /// The entity of a model (see [`to_entity`](super::to_entity)).
    pub fn from_model(model: &T) -> Result<Self, SerdeError>
    where
        T: Serialize,
    {
        super::to_entity(model).map(Self::of)
    }

    /// The model the entity holds (see [`from_entity`](super::from_entity)).
    pub fn model(&self) -> Result<T, SerdeError>
    where
        T: DeserializeOwned,
    {
        T::deserialize(de::EntityDeserializer::new(&self.dynamic))
    }

    /// Writes the model's fields onto the entity: the keys, every property the model names
    /// (a `None` removes it), and the Timestamp and ETag when the model holds them. Properties
    /// the model does not name stay, and so does the ETag read when the model has none.
    ///
    /// A stored value of a type the model's field could not have read (text where the model
    /// writes a number, say) is recorded as an unreadable overwrite: writes refuse the entity
    /// until [`DynamicEntity::allow_overwrite`] lets it go, so a model cannot silently
    /// destroy what another program stored.
    ///
    /// ```
    /// use tablekit::serde_bridge::Serde;
    /// use tablekit::{DynamicEntity, TableEntity};
    ///
    /// #[derive(serde::Serialize)]
    /// #[serde(rename_all = "PascalCase")]
    /// struct Gamer { partition_key: String, row_key: String, score: i32 }
    ///
    /// let mut stored = DynamicEntity::new("eu", "dragon");
    /// stored.set("Score", "high"); // text, which an i32 field cannot read
    /// stored.set("Notes", "kept");
    /// let mut entity = Serde::<Gamer>::wrap(stored);
    /// entity.set_model(&Gamer { partition_key: "eu".into(), row_key: "dragon".into(), score: 3 })?;
    /// assert_eq!(entity.as_dynamic().get::<String>("Notes").as_deref(), Some("kept"));
    /// let pending: Vec<_> = entity.as_dynamic().unreadable_overwrites().collect();
    /// assert_eq!(pending, [("Score", "stored Edm.String, the model writes Edm.Int32")]);
    /// # Ok::<(), tablekit::serde_bridge::SerdeError>(())
    /// ```
    pub fn set_model(&mut self, model: &T) -> Result<(), SerdeError>
    where
        T: Serialize,
    {
        let base = self.dynamic.clone();
        self.dynamic = model.serialize(ser::EntitySerializer::onto(base))?;
        Ok(())
    }
}

impl<T> Clone for Serde<T> {
    fn clone(&self) -> Self {
        Self::of(self.dynamic.clone())
    }
}

impl<T> fmt::Debug for Serde<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Serde").field(&self.dynamic).finish()
    }
}

impl<T> PartialEq for Serde<T> {
    fn eq(&self, other: &Self) -> bool {
        self.dynamic == other.dynamic
    }
}

impl<T: 'static> TableEntity for Serde<T> {
    fn wrap(dynamic: DynamicEntity) -> Self {
        Self::of(dynamic)
    }

    fn into_dynamic(self) -> DynamicEntity {
        self.dynamic
    }

    fn as_dynamic(&self) -> &DynamicEntity {
        &self.dynamic
    }

    fn as_dynamic_mut(&mut self) -> &mut DynamicEntity {
        &mut self.dynamic
    }
}

impl<T: 'static> TableModel for Serde<T> {
    type Entity = Serde<T>;
}
